/* div.c */
volatile int count;

__attribute__((noinline))
int compute_flag(int i)
{
        if (i % 10 < 4)          /* ... in 40% of the iterations */
                return i + 1;
        return 0;
}

int main(void)
{
        int i;
        int flag;
        volatile double x = 1212121212, y = 121212; /* Avoid compiler optimizing away */

        for (i = 0; i < ITERS; i++) {
                flag = compute_flag(i);

                /* Some other code */
                count++;

                if (flag)
                        x += x / y + y / x;     /* Execute expensive division if flag is set */
        }
        return 0;
}
/* The article's div.c (Andi Kleen, "An introduction to last branch records"),
 * line for line so that div.c:8 and div.c:25 keep their meaning; the loop
 * bound is ITERS so tests can run it briefly. Compile with -DITERS=N. */
#ifndef ITERS
#error "compile with -DITERS=N"
#endif
