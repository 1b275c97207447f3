// loop.cpp — the README's loop idiom (examples/loop.c) in C++: x = x - 0.1
// sin(x) 1,000 times on 10,000 floats; cjax::update runs each step in its
// own scope and frees the old state, so memory stays flat.
#include <cjax.hpp>
#include <cstdio>
using namespace cjax;

int main() {
    context ctx;
    array x = linspace(-10.0, 10.0, 10000);
    auto before = ctx.mem_stats();
    for (int i = 0; i < 1000; i++) update(x, [](array x) { return x - 0.1 * sin(x); });
    auto after = ctx.mem_stats();
    std::printf("x[0] after 1000 steps: %.7g (it settles on -4 pi = %.7g)\n", x.to_vector<float>()[0],
                -4 * 3.14159265358979);
    std::printf("array bytes in use: %zu before the loop, %zu after\n", before.bytes_in_arrays, after.bytes_in_arrays);
}
