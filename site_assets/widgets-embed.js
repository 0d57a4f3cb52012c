// Draws the widgets saved in a page (the book's sliders: sliders, drop-downs and toggle buttons tied to stacks of
// frames by jslink) with the widget library's own models and views (@jupyter-widgets/base and controls, in
// vendor/html-manager/base-controls.js), without a kernel. It stands in for the HTML manager of
// @jupyter-widgets/html-manager, whose bundle also carries what these pages never use (a renderer of notebook
// outputs, a JSON-schema validator); see tools/vendor.py. Loaded after require.js and base-controls.js
// (nb_ipywidgets_js in _config.yml).
(function () {
  "use strict";

  var here = document.currentScript ? document.currentScript.src : "";
  var vendor = here.slice(0, here.lastIndexOf("/") + 1);          // .../vendor/
  var STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';
  var VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';

  function load(names) {
    return new Promise(function (resolve, reject) {
      window.require(names, function () { resolve(Array.prototype.slice.call(arguments)); }, reject);
    });
  }

  // The widgets' stylesheet, last in <head> as the widget bundle placed its styles.
  function addStyles() {
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = vendor + "html-manager/widgets.css";
    document.head.appendChild(link);
    var kept = document.createElement("style");        // frames a Stack keeps while another one shows
    kept.textContent = ".sl-kept-hidden { display: none !important; }";
    document.head.appendChild(kept);
  }

  // The part of a widget manager that saved widgets need: models made from their saved state (references
  // between models resolved through get_model), views made and attached to the page; no kernel, no comms.
  function Manager(modules) {
    this.modules = modules;
    this.models = {};
  }

  Manager.prototype.loadClass = function (name, module) {
    var found = this.modules[module] && this.modules[module][name];
    return found ? Promise.resolve(found) : Promise.reject(new Error("no widget class " + module + "." + name));
  };
  Manager.prototype.loadModelClass = Manager.prototype.loadClass;
  Manager.prototype.loadViewClass = function (name, module) {
    if (name === "StackView" && module === "@jupyter-widgets/controls" && this.modules[module].StackView) {
      this.keptStack = this.keptStack || keptStackView(this.modules[module].StackView);
      return Promise.resolve(this.keptStack);
    }
    return this.loadClass(name, module);
  };

  // The library's Stack view drops the frame it showed and builds the next one from scratch, parsing its SVG, at
  // every move of a slider. This one keeps every frame it has drawn and only hides the others, so a move changes
  // which frame is displayed. The frames not drawn yet are drawn one at a time while the browser is idle.
  var idle = window.requestIdleCallback || function (work) { return setTimeout(work, 30); };

  function keptStackView(StackView) {
    return class KeptStackView extends StackView {
      update_children() {
        var index = this.model.get("selected_index");
        var children = this.model.get("children") || [];
        this.kept = this.kept || {};
        Object.keys(this.kept).forEach(function (i) {
          var view = this.kept[i].view;
          if (view) { view.el.classList.toggle("sl-kept-hidden", Number(i) !== index); }
        }, this);
        if (index === null || index === undefined || index >= children.length) { return; }
        this.draw(index);
        this.drawRest();
      }

      draw(i) {
        if (!(i in this.kept)) {
          var entry = this.kept[i] = { view: null };
          var self = this;
          entry.made = this.add_child_model(this.model.get("children")[i]).then(function (view) {
            entry.view = view;
            view.el.classList.toggle("sl-kept-hidden", self.model.get("selected_index") !== i);
            return view;
          });
        }
        return this.kept[i].made;
      }

      drawRest() {
        if (this.resting) { return; }
        this.resting = true;
        var self = this;
        var next = function (deadline) {
          if (deadline && deadline.timeRemaining && deadline.timeRemaining() < 8) { idle(next); return; }
          var children = self.model.get("children") || [];
          var at = self.model.get("selected_index") || 0;
          // nearest first: the frames a slider reaches in one step are ready soonest
          for (var d = 1; d < 2 * children.length; d++) {
            var i = at + (d % 2 ? (d + 1) / 2 : -d / 2);
            if (i >= 0 && i < children.length && !(i in self.kept)) {
              self.draw(i).then(function () { idle(next); });
              return;
            }
          }
        };
        idle(next);
      }
    };
  }

  Manager.prototype.get_model = function (id) {
    var model = this.models[id];
    return model ? model : Promise.reject(new Error("no widget model " + id));
  };
  Manager.prototype.has_model = function (id) { return id in this.models; };
  Manager.prototype.register_model = function (id, promise) { this.models[id] = promise; };

  Manager.prototype.new_model = function (options, state) {
    var self = this;
    var made = this.loadModelClass(options.model_name, options.model_module).then(function (Model) {
      return Promise.resolve(Model._deserialize_state(state || {}, self)).then(function (attributes) {
        var model = new Model(attributes, { widget_manager: self, model_id: options.model_id, comm: undefined });
        model.name = options.model_name;
        model.module = options.model_module;
        return model;
      });
    });
    this.register_model(options.model_id, made);
    return made;
  };

  // Every model of the saved state is registered before any is built, so that one model's reference to
  // another (IPY_MODEL_...) finds it whatever their order.
  Manager.prototype.set_state = function (saved) {
    var self = this;
    return Promise.all(Object.keys(saved.state).map(function (id) {
      var entry = saved.state[id];
      return self.new_model({ model_id: id, model_name: entry.model_name, model_module: entry.model_module,
                              model_module_version: entry.model_module_version }, entry.state);
    }));
  };

  Manager.prototype.create_view = function (model, options) {
    var self = this;
    var view = model.state_change = model.state_change.then(function () {
      return self.loadViewClass(model.get("_view_name"), model.get("_view_module")).then(function (View) {
        var made = new View({ model: model, options: options || {} });
        made.listenTo(model, "destroy", made.remove);
        return Promise.resolve(made.render()).then(function () { return made; });
      });
    });
    return view;
  };

  Manager.prototype.display_view = function (view, element) {
    this.modules["@jupyter-widgets/base"].JupyterLuminoWidget.attach(view.luminoWidget || view.pWidget, element);
    return view;
  };

  Manager.prototype.callbacks = function () { return {}; };
  Manager.prototype.setViewOptions = function (options) { return options || {}; };
  Manager.prototype.resolveUrl = function (url) { return Promise.resolve(url); };
  // Descriptions written as HTML come from the book's own saved state.
  Manager.prototype.inline_sanitize = function (text) { return text; };

  // As the HTML manager's embedder does: a div.widget-subarea before each view's script, the view drawn in it.
  function render(manager) {
    var states = document.querySelectorAll(STATE);
    return Promise.all(Array.prototype.map.call(states, function (script) {
      return manager.set_state(JSON.parse(script.textContent)).then(function () {
        return Promise.all(Array.prototype.map.call(document.querySelectorAll(VIEW), function (tag) {
          var id = JSON.parse(tag.textContent).model_id;
          if (!manager.has_model(id) || !tag.parentElement) { return null; }
          var area = document.createElement("div");
          area.className = "widget-subarea";
          tag.parentElement.insertBefore(area, tag);
          return manager.get_model(id).then(function (model) { return manager.create_view(model); })
            .then(function (view) { return manager.display_view(view, area); });
        }));
      });
    })).catch(function (error) { console.error("widgets: " + (error && error.stack || error)); });
  }

  // The widget library typesets labels with MathJax 2's MathJax.Hub.Queue; the book loads MathJax 3 (deferred,
  // so it is there when the document is parsed). The call goes to MathJax 3's typesetter once it has started.
  function mathjaxBridge() {
    var mj = window.MathJax;
    if (mj && !mj.Hub) {
      mj.Hub = {
        Queue: function (command) {
          var element = command && command[2];
          var started = mj.startup && mj.startup.promise ? mj.startup.promise : Promise.resolve();
          if (element) {
            started.then(function () { return mj.typesetPromise ? mj.typesetPromise([element]) : null; });
          }
        }
      };
    }
  }

  function start() {
    if (!document.querySelector(STATE)) { return; }
    mathjaxBridge();
    addStyles();
    load(["@jupyter-widgets/base", "@jupyter-widgets/controls"]).then(function (mods) {
      render(new Manager({ "@jupyter-widgets/base": mods[0], "@jupyter-widgets/controls": mods[1] }));
    }, function (error) { console.error("widgets: could not load the widget library: " + error); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
