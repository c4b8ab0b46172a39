// bolt-exc.cc — C++ exceptions for BOLT: a throw on a cold path (gcc puts
// it in NAME.cold) and landing pads, which start basic blocks of their own.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

static __attribute__((noinline)) int thrower(int i)
{
	if (i % 7 == 3)
		throw std::runtime_error("seven");
	return i * 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000, s = 0;
	std::vector<std::string> v;

	for (long i = 0; i < n; i++) {
		try {
			s += thrower((int)i);
			v.push_back(std::to_string(i));
			if (v.size() > 10)
				v.clear();
		} catch (const std::exception &e) {
			s -= 1;
		}
	}
	std::printf("%ld\n", s & 0xff);
	return 0;
}
