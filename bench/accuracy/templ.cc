// templ.cc — C++ templates: one algorithm instantiated for two element
// types, hot at different rates, with a functor inlined into it.
// usage: templ [N]
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T> struct Less {
	bool operator()(const T &a, const T &b) const { return a < b; }
};

template <typename T, typename Cmp>
__attribute__((noinline)) void insertion_sort(std::vector<T> &v, Cmp cmp)
{
	for (size_t i = 1; i < v.size(); i++) {
		T x = v[i];
		size_t j = i;
		while (j > 0 && cmp(x, v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

template <typename T> __attribute__((noinline)) T checksum(const std::vector<T> &v)
{
	T s = 0;
	for (size_t i = 0; i < v.size(); i++)
		s = s * 31 + v[i];
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200;
	long sum = 0;

	for (long r = 0; r < n; r++) {
		std::vector<int> a(300);
		for (size_t i = 0; i < a.size(); i++)
			a[i] = (int)((i * 7919 + r) % 1009);
		insertion_sort(a, Less<int>());
		sum += checksum(a);
		if (r % 4 == 0) {
			std::vector<double> d(200);
			for (size_t i = 0; i < d.size(); i++)
				d[i] = (double)((i * 104729 + r) % 997) / 7.0;
			insertion_sort(d, Less<double>());
			sum += (long)checksum(d);
		}
	}
	std::printf("%ld\n", sum);
	return 0;
}
