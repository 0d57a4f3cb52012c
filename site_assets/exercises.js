// The book's answer checker, in the page: the same verdicts as the kernel's `check` (scalinglib/exercises/
// core.py), computed from sealed answers with no kernel and no network.
//
// This file holds no rule and no message of its own. Each page carries its exercises' data (a script
// element of type application/json, id "sl-exercise-data", written by book/_ext/book_extras.py from
// core.page_data): salted hashes of the accepted answers and of the bands around them (the seals of the
// student edition's sealed.json), and for each number a program, the steps the kernel's _judge runs, with
// the message templates it fills in. This script hashes the reader's answer as the kernel would (BLAKE2b,
// keyed with the seal's salt), runs the steps, and prints the verdict the kernel prints for the same answer.
//
// What a typed answer means, as a Python value given to check(key, value):
//   number part:   blank -> ...; "12", "-3" -> int; "0.5", "1e-3" -> float; "45.6%" -> 45.6 where the part
//                  asks for a percentage, else 0.456 (45.6 / 100); anything else -> the text itself (a str).
//   numbers part:  blank -> ...; otherwise a list: "[100, 20, 5]", "32, 64" or "32 64", each item read as
//                  above ("..." -> ...).
//   choice part:   the option chosen (or a word typed) -> that str; none -> ...
//   choices part:  one option per item -> a list of str (an item left open -> ...); none at all -> ...
(function () {
  "use strict";

  // ------------------------------------------------------------------ BLAKE2b, keyed, short digests
  // 64-bit words are kept as (low, high) pairs of 32-bit halves in Uint32Arrays.
  var IV = new Uint32Array([
    0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
    0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19]);
  var SIGMA = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4], [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13], [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11], [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5], [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0]];
  var v = new Uint32Array(32), m = new Uint32Array(32);

  function add(a, b) {            // v[a] += v[b]
    var lo = v[2 * a] + v[2 * b];
    v[2 * a + 1] = v[2 * a + 1] + v[2 * b + 1] + (lo > 0xffffffff ? 1 : 0);
    v[2 * a] = lo;
  }
  function addWord(a, w) {        // v[a] += m[w]
    var lo = v[2 * a] + m[2 * w];
    v[2 * a + 1] = v[2 * a + 1] + m[2 * w + 1] + (lo > 0xffffffff ? 1 : 0);
    v[2 * a] = lo;
  }
  function xorRotate(a, b, r) {   // v[a] = (v[a] ^ v[b]) rotated right by r (32, 24, 16 or 63)
    var lo = v[2 * a] ^ v[2 * b], hi = v[2 * a + 1] ^ v[2 * b + 1];
    if (r === 32) { v[2 * a] = hi; v[2 * a + 1] = lo; return; }
    if (r === 63) { v[2 * a] = (lo << 1) | (hi >>> 31); v[2 * a + 1] = (hi << 1) | (lo >>> 31); return; }
    v[2 * a] = (lo >>> r) | (hi << (32 - r));
    v[2 * a + 1] = (hi >>> r) | (lo << (32 - r));
  }
  function mix(a, b, c, d, x, y) {
    add(a, b); addWord(a, x); xorRotate(d, a, 32); add(c, d); xorRotate(b, c, 24);
    add(a, b); addWord(a, y); xorRotate(d, a, 16); add(c, d); xorRotate(b, c, 63);
  }
  function compress(h, block, offset, count, last) {
    var i;
    for (i = 0; i < 16; i++) { v[i] = h[i]; v[i + 16] = IV[i]; }
    v[24] ^= count % 0x100000000; v[25] ^= Math.floor(count / 0x100000000);
    if (last) { v[28] = ~v[28]; v[29] = ~v[29]; }
    for (i = 0; i < 32; i++) {
      var j = offset + 4 * i;
      m[i] = block[j] | (block[j + 1] << 8) | (block[j + 2] << 16) | (block[j + 3] << 24);
    }
    for (var r = 0; r < 12; r++) {
      var s = SIGMA[r % 10];
      mix(0, 4, 8, 12, s[0], s[1]); mix(1, 5, 9, 13, s[2], s[3]);
      mix(2, 6, 10, 14, s[4], s[5]); mix(3, 7, 11, 15, s[6], s[7]);
      mix(0, 5, 10, 15, s[8], s[9]); mix(1, 6, 11, 12, s[10], s[11]);
      mix(2, 7, 8, 13, s[12], s[13]); mix(3, 4, 9, 14, s[14], s[15]);
    }
    for (i = 0; i < 16; i++) h[i] ^= v[i] ^ v[i + 16];
  }
  // BLAKE2b of `message` keyed with `key` (both Uint8Array, key at most 64 bytes), `size` bytes, as hex. The state
  // after a key's block is kept (a seal hashes many short messages with one key).
  var keyed = new Map();
  function blake2b(key, message, size) {
    var padded = key.length ? 128 : 0, total = padded + message.length;
    var name = size + ":" + key.join(","), start = keyed.get(name), h;
    if (start && message.length) {
      h = new Uint32Array(start);
    } else {
      h = new Uint32Array(IV);
      h[0] ^= 0x01010000 ^ (key.length << 8) ^ size;
    }
    var blocks = Math.max(1, Math.ceil(total / 128));
    var data = new Uint8Array(blocks * 128);
    data.set(key, 0);
    data.set(message, padded);
    for (var b = start && message.length ? 1 : 0; b < blocks; b++) {
      var last = b === blocks - 1;
      compress(h, data, 128 * b, last ? total : 128 * (b + 1), last);
      if (b === 0 && padded && !last && !start) keyed.set(name, new Uint32Array(h));
    }
    var out = "";
    for (var i = 0; i < size; i++) out += ((h[i >> 2] >>> (8 * (i & 3))) & 255).toString(16).padStart(2, "0");
    return out;
  }

  var utf8 = new TextEncoder();
  function hexBytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }
  function hashSet(base64, size) {  // concatenated digests -> Set of hex strings
    var raw = atob(base64), set = new Set();
    for (var i = 0; i < raw.length; i += size) {
      var hex = "";
      for (var j = i; j < i + size; j++) hex += raw.charCodeAt(j).toString(16).padStart(2, "0");
      set.add(hex);
    }
    return set;
  }

  // ------------------------------------------------------------------ Python's ways of printing
  // Python's str() of an int typed as digits
  function intText(digits) { return BigInt(digits).toString(); }

  // format(x, ".6g") for a float, ties rounded to even as Python does
  function formatG(x) {
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    if (!isFinite(x)) return isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
    var sign = x < 0 ? "-" : "", a = Math.abs(x);
    var e = a.toExponential(5).split("e"), digits = e[0].replace(".", ""), exp = parseInt(e[1], 10);
    var tie = exactTie(a);
    if (tie) { digits = tie[0]; exp = tie[1]; }
    if (exp >= -4 && exp < 6) {
      var text = exp >= 0 ? digits.slice(0, exp + 1) + "." + digits.slice(exp + 1)
        : "0." + "0".repeat(-exp - 1) + digits;
      text = text.indexOf(".") >= 0 ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
      return sign + text;
    }
    var mantissa = (digits[0] + "." + digits.slice(1)).replace(/0+$/, "").replace(/\.$/, "");
    return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }
  // toExponential rounds a tie away from zero, Python to even: a tie is a value of exactly seven significant
  // digits ending in 5. Returns [six digits, exponent] when Python rounds such a tie down, else null.
  function exactTie(a) {
    var shortest = a.toExponential().split("e"), d = shortest[0].replace(".", "");
    if (d.length !== 7 || d[6] !== "5" || "02468".indexOf(d[5]) < 0) return null;
    var exp = parseInt(shortest[1], 10);
    // is the double exactly d * 10^(exp - 6)?
    var view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, a);
    var hi = view.getUint32(0), lo = view.getUint32(4), biased = (hi >>> 20) & 0x7ff;
    var mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo), two = biased - 1075;
    if (biased) mant |= 1n << 52n; else two = -1074;
    var left = BigInt(d), right = mant, q = exp - 6;
    if (q >= 0) left *= 10n ** BigInt(q); else right *= 10n ** BigInt(-q);
    if (two >= 0) right <<= BigInt(two); else left <<= BigInt(-two);
    return left === right ? [d.slice(0, 6), exp] : null;
  }
  // repr() of a str
  var UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
  function pyRepr(s) {
    var quote = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'", out = quote;
    for (var ch of s) {
      var c = ch.codePointAt(0);
      if (ch === "\\" || ch === quote) out += "\\" + ch;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (ch !== " " && UNPRINTABLE.test(ch)) {
        out += c < 0x100 ? "\\x" + c.toString(16).padStart(2, "0")
          : c < 0x10000 ? "\\u" + c.toString(16).padStart(4, "0") : "\\U" + c.toString(16).padStart(8, "0");
      } else out += ch;
    }
    return out + quote;
  }

  // ------------------------------------------------------------------ reading what the reader typed
  var NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/, INTEGER = /^[+-]?\d+$/;

  // One typed item -> {kind: "number", x, shown} | {kind: "blank"} | {kind: "text", text} | {kind: "overflow"}
  function readItem(text, percentAsked) {
    if (text === "...") return { kind: "blank" };
    var percent = /%$/.test(text), body = percent ? text.slice(0, -1).trim() : text;
    if (!NUMBER.test(body)) return { kind: "text", text: text };
    var whole = INTEGER.test(body) && (!percent || percentAsked);
    var x = Number(body);
    if (percent && !percentAsked) x = x / 100;
    if (whole && !isFinite(x)) return { kind: "overflow" };   // Python: float() of a huge int overflows
    return { kind: "number", x: x, shown: whole ? intText(body) : formatG(x), whole: whole };
  }
  function splitList(text) {
    var t = text.trim();
    if (/^\[.*\]$/.test(t) || /^\(.*\)$/.test(t)) t = t.slice(1, -1);
    return t.split(/\s*[,;]\s*|\s+/).filter(function (s) { return s !== ""; });
  }

  // ------------------------------------------------------------------ the checker of one page
  function Checker(data) {
    this.d = data;
    this.spaces = new RegExp("[" + data.wordSpaces.replace(/[\\\]\[^-]/g, "\\$&") + "]", "g");
    this.seals = {};
  }
  Checker.prototype.say = function (name, fields) {
    return this.d.messages[name].replace(/\{(\w+)\}/g, function (_, k) { return String(fields[k]); });
  };
  Checker.prototype.render = function (template, shown) {
    var strings = this.d.strings;
    return template.map(function (i) { return i < 0 ? shown : strings[i]; }).join("");
  };
  Checker.prototype.seal = function (key, i) {
    var id = key + "/" + i;
    if (!this.seals[id]) {
      var e = this.d.parts[key].entries[i];
      var numeric = e.length > 2;
      var seal = { salt: hexBytes(e[0]), step: numeric ? e[1] : null, accept: hashSet(numeric ? e[2] : e[1], 6) };
      if (numeric) {
        seal.sign = e[3];
        seal.bands = e[4].map(function (band) { return band.map(function (b) { return hashSet(b, 6); }); });
        seal.program = this.d.programs[e[5]];
        seal.percent = e[6] === 1;
      }
      this.seals[id] = seal;
    }
    return this.seals[id];
  };
  function hash(seal, tag, value) { return blake2b(seal.salt, utf8.encode(tag + "|" + value), 6); }
  function sign(x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
  function bin(x, step) { return Math.floor(Math.log(Math.abs(x)) / step); }

  Checker.prototype.accepts = function (seal, x) {
    if (!isFinite(x) || x === 0) return false;
    if (seal.step === 0) return Number.isInteger(x) && seal.accept.has(hash(seal, "int", BigInt(x).toString()));
    return seal.accept.has(hash(seal, "a", "(" + sign(x) + ", " + bin(x, seal.step) + ")"));
  };
  Checker.prototype.band = function (seal, x) {
    var steps = this.d.bandSteps;
    for (var i = 0; i < seal.bands.length; i++) {
      var h = hash(seal, "L" + i, "(" + sign(x) + ", " + bin(x, steps[i]) + ")");
      var sides = ["high", "low", "near"];
      for (var s = 0; s < 3; s++) if (seal.bands[i][s].has(h)) return [i, sides[s]];
    }
    return [seal.bands.length, ""];
  };
  // (right?, message) for one number: the first step of the entry's program that holds
  Checker.prototype.judge = function (seal, item) {
    var x = item.x, self = this, memo = new Map();
    function band(y) { if (!memo.has(y)) memo.set(y, self.band(seal, y)); return memo.get(y); }
    var tests = {
      "ok": function () { return self.accepts(seal, x); },
      "1-": function () { return isFinite(1 - x) && self.accepts(seal, 1 - x); },
      "/": function (f) { return self.accepts(seal, x / f); },
      "*": function (f) { return self.accepts(seal, x * f); },
      "inv": function () { return x !== 0 && isFinite(1 / x) && band(1 / x)[0] === 0 && band(x)[0] >= 2; },
      "frac": function () { return !Number.isInteger(x); },
      "zero": function () { return x === 0; },
      "sign": function () { return hash(seal, "sign", String(sign(x))) !== seal.sign; },
      "band": function (where) { var b = band(x); return b[0] === where[0] && b[1] === where[1]; }
    };
    for (var k = 0; k < seal.program.length; k++) {
      var step = seal.program[k];
      if (tests[step[0]](step[1])) return [step[0] === "ok", this.render(step[2], item.shown)];
    }
    throw new Error("a program ends with every band");
  };
  Checker.prototype.word = function (part, given) {
    var words = given.trim().toLowerCase().replace(this.spaces, " ").split(/\s+/).filter(Boolean);
    while (words.length > 1 && this.d.wordTrailers.indexOf(words[words.length - 1]) >= 0) words.pop();
    var canonical = part.words[words.join(" ")];
    return canonical === undefined ? null : canonical;
  };
  function end(sentence) { return /[?.]$/.test(sentence) ? sentence : sentence + "."; }

  // The verdict on `answer` (a string, or for a "choices" part an array of strings, "" for an item left open):
  // {status, message, text}, text being what the kernel's Feedback.text() prints.
  Checker.prototype.check = function (key, answer) {
    var part = this.d.parts[key], self = this;
    if (!part) return this.feedback(key, "unknown", this.say("unknown", { given: pyRepr(String(key)), extra: "" }), "");
    var say = function (name, fields) { fields = fields || {}; fields.how = part.how; return self.say(name, fields); };
    var verdict = function (status, message) { return self.feedback(key, status, message, part.hint); };
    var blank = Array.isArray(answer) ? answer.every(function (a) { return a === ""; }) : answer.trim() === "";
    if (blank) return verdict("unanswered", say("unanswered"));
    var n = part.entries.length, i, notes = [];
    if (part.kind === "number") {
      var item = readItem(answer.trim(), this.seal(key, 0).percent);
      if (item.kind === "blank") return verdict("unanswered", say("unanswered"));
      if (item.kind === "text") return verdict("invalid", say("text", { given: pyRepr(item.text) }));
      if (item.kind === "overflow") return verdict("invalid", say("unreadable", { error: "OverflowError" }));
      if (!isFinite(item.x)) return verdict("invalid", say("finite", { given: formatG(item.x) }));
      var one = this.judge(this.seal(key, 0), item);
      return one[0] ? verdict("correct", one[1]) : verdict("incorrect", say("wrong", { message: end(one[1]) }));
    }
    if (part.kind === "numbers") {
      var texts = splitList(answer);
      if (texts.length !== n) return verdict("invalid", say("count", { n: n, m: texts.length }));
      for (i = 0; i < n; i++) {
        var seal = this.seal(key, i), it = readItem(texts[i], seal.percent);
        if (it.kind === "blank") return verdict("unanswered", say("entry_blank", { i: i + 1 }));
        if (it.kind === "overflow") return verdict("invalid", say("unreadable", { error: "OverflowError" }));
        if (it.kind === "text" || !isFinite(it.x)) {
          var shown = it.kind === "text" ? pyRepr(it.text) : formatG(it.x);
          return verdict("invalid", say("entry_text", { i: i + 1, given: shown }));
        }
        var r = this.judge(seal, it);
        if (!r[0]) notes.push(say("entry", { i: i + 1, message: r[1] }));
      }
      if (!notes.length) return verdict("correct", say("entries_right", { n: n }));
      var message = end(say("entries_wrong", { right: n - notes.length, n: n, notes: notes.join(this.d.messages.notes_joint) }));
      return verdict("incorrect", say("wrong", { message: message }));
    }
    if (part.kind === "choice") {
      var given = answer.trim(), word = this.word(part, given);
      if (word === null) return verdict("invalid", say("word_invalid", { given: pyRepr(given) }));
      return this.accepts_word(key, 0, word) ? verdict("correct", say("word_right", { given: pyRepr(given) }))
        : verdict("incorrect", say("word_wrong", { given: pyRepr(given) }));
    }
    var items = Array.isArray(answer) ? answer : splitList(answer), wrong = [];
    if (items.length !== n) return verdict("invalid", say("words_count", { n: n, m: items.length }));
    for (i = 0; i < n; i++) {
      if (items[i] === "" || items[i] === "...") return verdict("unanswered", say("item_blank", { i: i + 1 }));
      var w = this.word(part, items[i]);
      if (w === null) return verdict("invalid", say("item_invalid", { i: i + 1, given: pyRepr(items[i]) }));
      if (!this.accepts_word(key, i, w)) wrong.push(String(i + 1));
    }
    if (!wrong.length) return verdict("correct", say("items_right", { n: n }));
    return verdict("incorrect", say("items_wrong", { right: n - wrong.length, n: n, items: wrong.join(this.d.messages.items_joint) }));
  };
  Checker.prototype.accepts_word = function (key, i, word) {
    var seal = this.seal(key, i);
    return seal.accept.has(hash(seal, "w", word));
  };
  Checker.prototype.feedback = function (key, status, message, hint) {
    var text = this.say("line", { mark: this.d.marks[status], key: key, message: message });
    if (hint && (status === "incorrect" || status === "invalid")) text += "\n" + this.say("hint", { hint: hint });
    return { key: key, status: status, message: message, text: text };
  };

  // ------------------------------------------------------------------ the page: fields, verdicts, storage
  var STORE = "scalinglib.answers";
  function load() {
    try { return JSON.parse(window.localStorage.getItem(STORE) || "{}") || {}; } catch (e) { return {}; }
  }
  function save(saved) {
    try { window.localStorage.setItem(STORE, JSON.stringify(saved)); } catch (e) { /* storage off: nothing kept */ }
  }
  function fields(form, key) { return Array.prototype.slice.call(form.querySelectorAll('[data-part="' + key + '"]')); }
  function answerOf(form, key, kind) {
    var els = fields(form, key);
    return kind === "choices" ? els.map(function (el) { return el.value; }) : els[0].value;
  }

  var checker = null;
  function show(form, key, result, remember) {
    var out = form.querySelector('[data-verdict-for="' + key + '"]');
    out.textContent = result.text;
    out.className = "sl-verdict sl-" + result.status;
    out.setAttribute("data-status", result.status);
    if (remember) {
      var saved = load(), kind = checker.d.parts[key].kind;
      saved[key] = { answer: answerOf(form, key, kind), status: result.status };
      if (result.status === "unanswered") delete saved[key];
      save(saved);
    }
  }
  function checkField(form, key) {
    var result = checker.check(key, answerOf(form, key, checker.d.parts[key].kind));
    show(form, key, result, true);
    return result;
  }
  function setup() {
    var holder = document.getElementById("sl-exercise-data");
    if (holder) {
      checker = new Checker(JSON.parse(holder.textContent));
      var saved = load();
      document.querySelectorAll("form.sl-answers").forEach(function (form) {
        form.addEventListener("submit", function (event) { event.preventDefault(); });
        form.querySelectorAll("[data-part]").forEach(function (field) {
          var key = field.getAttribute("data-part");
          if (field.tagName === "INPUT") {
            field.addEventListener("keydown", function (event) {
              if (event.key === "Enter") { event.preventDefault(); checkField(form, key); }
            });
          }
        });
        form.querySelectorAll("button[data-check]").forEach(function (button) {
          button.addEventListener("click", function () { checkField(form, button.getAttribute("data-check")); });
        });
        // answers given on an earlier visit: put back and judged again (quietly: no announcement)
        form.querySelectorAll("[data-verdict-for]").forEach(function (out) {
          var key = out.getAttribute("data-verdict-for"), kept = saved[key];
          if (!kept || !checker.d.parts[key]) return;
          var els = fields(form, key), values = Array.isArray(kept.answer) ? kept.answer : [kept.answer];
          els.forEach(function (el, i) { el.value = values[i] === undefined ? "" : values[i]; });
          out.setAttribute("aria-live", "off");
          show(form, key, checker.check(key, answerOf(form, key, checker.d.parts[key].kind)), true);
          out.setAttribute("aria-live", "polite");
        });
        var clear = form.querySelector("button.sl-clear");
        if (clear) {
          clear.addEventListener("click", function () {
            var kept = load();
            form.querySelectorAll("[data-verdict-for]").forEach(function (out) {
              var key = out.getAttribute("data-verdict-for");
              delete kept[key];
              fields(form, key).forEach(function (el) { el.value = ""; });
              out.textContent = "";
              out.className = "sl-verdict";
              out.removeAttribute("data-status");
            });
            save(kept);
            var first = form.querySelector("[data-part]");
            if (first) first.focus();
          });
        }
      });
    }
    setupIndex();
  }
  // The exercise index: which parts the reader has right, from the answers kept in this browser
  function showProgress() {
    var cells = document.querySelectorAll("[data-progress-parts]");
    if (!cells.length) return;
    var saved = load();
    cells.forEach(function (cell) {
      var keys = cell.getAttribute("data-progress-parts").split(" "), right = 0, marks = [];
      keys.forEach(function (key) {
        var status = saved[key] ? saved[key].status : "";
        if (status === "correct") right += 1;
        marks.push(key.slice(-1) + " " + (status === "correct" ? "\u2714" : status ? "\u2718" : "\u2013"));
      });
      cell.textContent = right + " of " + keys.length + " right (" + marks.join(", ") + ")";
      cell.setAttribute("data-right", String(right));
    });
  }
  function setupIndex() {
    var clearAll = document.querySelector("button.sl-clear-all");
    if (clearAll) {
      clearAll.hidden = false;
      clearAll.addEventListener("click", function () { save({}); showProgress(); });
    }
    showProgress();
  }

  window.scalinglibExercises = {
    // for scripts and tests: the verdict on an answer, as check(key, answer).text() prints it
    check: function (key, answer) { return checker ? checker.check(key, answer) : null; },
    // put an answer in a part's fields and check it as the Check button does
    answer: function (key, answer) {
      var field = document.querySelector('[data-part="' + key + '"]'), form = field.closest("form");
      var values = Array.isArray(answer) ? answer : [answer];
      fields(form, key).forEach(function (el, i) { el.value = values[i]; });
      return checkField(form, key);
    },
    blake2b: function (keyHex, text, size) { return blake2b(hexBytes(keyHex), utf8.encode(text), size); },
    formatG: formatG,
    pyRepr: pyRepr
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
