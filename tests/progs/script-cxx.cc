// script-cxx.cc — C++ names for `ocrec script`: a namespace, a template, a
// const method, a lambda and the standard library (sort, map, string).
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace ns {
template <typename T> __attribute__((noinline)) T sum(const std::vector<T> &v)
{
	T s = 0;
	for (auto x : v)
		s += x;
	return s;
}

struct Words {
	long n;
	__attribute__((noinline)) long count() const
	{
		std::map<int, std::string> m;
		for (long i = 0; i < n; i++)
			m[i % 1000] += "x";
		return (long)m.size();
	}
};
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	std::vector<double> d(n);
	for (long i = 0; i < n; i++)
		d[i] = i * 0.5;
	std::sort(d.rbegin(), d.rend());
	auto f = [&](int k) { return ns::sum(d) + k; };
	double r = 0;
	for (int k = 0; k < 20; k++)
		r += f(k);
	ns::Words w{n};
	std::cout << r + w.count() << "\n";
	return 0;
}
