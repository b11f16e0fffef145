// SPDX-License-Identifier: GPL-2.0
/*
 * handle-cost - many tiny jbd2 handles, for bench/handle-cost
 *
 *   handle-cost DIR THREADS OPS
 *
 * Each of THREADS threads creates DIR/hc<i> and then calls fchmod() on it
 * OPS times, alternating two modes: every call is one ext4 inode update,
 * i.e. one jbd2 handle start and stop around a tiny change, with no I/O
 * (the file system sits on a RAM disk and nothing is synced).  The
 * threads start together; prints one line
 *   threads=T ops=N wall_s=W ns_per_op=X
 * where ns_per_op is the wall time over all threads' operations.
 * Exit status 1 on any error.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static long ops;
static pthread_barrier_t start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	long id = (long)arg, i;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/hc%ld", dir, id);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < ops; i++) {
		if (fchmod(fd, (i & 1) ? 0644 : 0600)) {
			perror("fchmod");
			exit(1);
		}
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[64];
	long threads, t;
	double t0, t1;

	if (argc != 4) {
		fprintf(stderr, "usage: handle-cost DIR THREADS OPS\n");
		return 2;
	}
	dir = argv[1];
	threads = atol(argv[2]);
	ops = atol(argv[3]);
	if (threads < 1 || threads > 64 || ops < 1) {
		fprintf(stderr, "handle-cost: 1..64 threads, ops >= 1\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, threads + 1);
	for (t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, worker, (void *)t)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	pthread_barrier_wait(&start);
	t0 = now();
	for (t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	t1 = now();
	printf("threads=%ld ops=%ld wall_s=%.4f ns_per_op=%.1f\n", threads,
	       ops, t1 - t0, (t1 - t0) * 1e9 / (threads * ops));
	return 0;
}
