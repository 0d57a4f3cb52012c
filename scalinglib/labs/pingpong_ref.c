/*
 * A ping-pong in C, timed the way osu_latency times it, for Section 3.8.6's lab.
 *
 * The lab compares its own Python (mpi4py) ping-pong with an established MPI benchmark. When the
 * OSU micro-benchmarks' osu_latency is not installed, the lab compiles this file with the MPI
 * wheel's mpicc and runs it instead. Method: for each size, rank 0 sends and waits for the echo,
 * rank 1 echoes; `skip` round trips warm up, then `iters` round trips are timed with MPI_Wtime;
 * the one-way latency is the elapsed time over 2 iters. Above `large` bytes the counts drop to
 * `iters_large` and `skip_large`. Output: one line per size, "<bytes> <microseconds>".
 *
 * Usage: pingpong_ref <smallest> <largest> <iters> <skip> <iters_large> <skip_large> <large>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 8 || size < 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: pingpong_ref smallest largest iters skip iters_large skip_large large "
                            "(on 2 ranks)\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long smallest = atol(argv[1]), largest = atol(argv[2]);
    long iters_small = atol(argv[3]), skip_small = atol(argv[4]);
    long iters_large = atol(argv[5]), skip_large = atol(argv[6]), large = atol(argv[7]);
    char *out = malloc((size_t)largest), *in = malloc((size_t)largest);
    if (out == NULL || in == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(out, 1, (size_t)largest);
    memset(in, 0, (size_t)largest);

    for (long n = smallest; n <= largest; n *= 2) {
        long iters = n > large ? iters_large : iters_small;
        long skip = n > large ? skip_large : skip_small;
        double began = 0.0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = 0; i < iters + skip; i++) {
            if (i == skip) {
                began = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(out, (int)n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(in, (int)n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(in, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(out, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            double one_way = (MPI_Wtime() - began) / (2.0 * (double)iters);
            printf("%ld %.3f\n", n, one_way * 1e6);
            fflush(stdout);
        }
        if (n == 0) {
            break;
        }
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
