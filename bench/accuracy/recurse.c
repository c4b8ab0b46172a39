/* recurse.c — recursion: a binary tree built and walked recursively, with a
 * branch on the node's value at every level. usage: recurse [DEPTH] [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>

struct node {
	long v;
	struct node *l, *r;
};

static struct node *build(int depth, long *seed)
{
	struct node *n;

	if (depth == 0)
		return NULL;
	n = malloc(sizeof(*n));
	*seed = *seed * 6364136223846793005L + 1442695040888963407L;
	n->v = (*seed >> 33) % 100;
	n->l = build(depth - 1, seed);
	n->r = build(depth - 1, seed);
	return n;
}

__attribute__((noinline)) long walk(const struct node *n, long limit)
{
	long s;

	if (!n)
		return 0;
	if (n->v < limit)
		s = n->v * 3;
	else
		s = -n->v;
	return s + walk(n->l, limit) + walk(n->r, limit);
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 16;
	long rounds = argc > 2 ? atol(argv[2]) : 50, seed = 1, sum = 0, r;
	struct node *root = build(depth, &seed);

	for (r = 0; r < rounds; r++)
		sum += walk(root, 20 + r % 50);
	printf("%ld\n", sum);
	return 0;
}
