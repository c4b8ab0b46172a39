/* interp.c — a switch-dispatched stack machine (the shape of gawk's
 * r_interpret): a hot loop around a switch whose cases run at different
 * rates, one of them behind a data-dependent jump. usage: interp [N] */
#include <stdio.h>
#include <stdlib.h>

enum op { PUSH, LOAD, STORE, ADD, SUB, MUL, AND, JNZ, JMP, HALT };

struct insn {
	enum op op;
	long arg;
};

static long run(const struct insn *code, long *var)
{
	long stack[16], sp = 0, pc = 0;

	for (;;) {
		const struct insn *in = &code[pc++];

		switch (in->op) {
		case PUSH:
			stack[sp++] = in->arg;
			break;
		case LOAD:
			stack[sp++] = var[in->arg];
			break;
		case STORE:
			var[in->arg] = stack[--sp];
			break;
		case ADD:
			sp--;
			stack[sp - 1] += stack[sp];
			break;
		case SUB:
			sp--;
			stack[sp - 1] -= stack[sp];
			break;
		case MUL:
			sp--;
			stack[sp - 1] *= stack[sp];
			break;
		case AND:
			sp--;
			stack[sp - 1] &= stack[sp];
			break;
		case JNZ:
			if (stack[--sp])
				pc = in->arg;
			break;
		case JMP:
			pc = in->arg;
			break;
		case HALT:
			return var[0];
		}
	}
}

int main(int argc, char **argv)
{
	long var[2] = { 0, argc > 1 ? atol(argv[1]) : 1000000 };   /* acc, k */
	/* do { acc += 3 * k; if (!(k & 3)) acc -= k; } while (--k); */
	static const struct insn code[] = {
		{ LOAD, 1 }, { PUSH, 3 }, { MUL, 0 }, { LOAD, 0 }, { ADD, 0 }, { STORE, 0 },   /* 0 */
		{ LOAD, 1 }, { PUSH, 3 }, { AND, 0 }, { JNZ, 14 },                             /* 6 */
		{ LOAD, 0 }, { LOAD, 1 }, { SUB, 0 }, { STORE, 0 },                            /* 10 */
		{ LOAD, 1 }, { PUSH, 1 }, { SUB, 0 }, { STORE, 1 },                            /* 14 */
		{ LOAD, 1 }, { JNZ, 0 }, { HALT, 0 },                                          /* 18 */
	};

	printf("%ld\n", run(code, var));
	return 0;
}
