// readme_example.cpp — the README's example (examples/readme_example.c) in
// C++ (cjax.hpp); it prints exactly what the C program prints.
#include <cjax.hpp>
using namespace cjax;

int main() {
    context ctx;                                   // freed at the end
    array x = linspace(0.0, 1.0, 5);               // an eager array
    exp(x).print();                                // an eager op
    auto jf = jit([](array x) { return sin(x) * cos(x) + x * x; });
    array y = jf(x);                               // traces once, caches, runs
    jf.print_ir(x);                                // { lambda ; a:f32[5]. let ...
    y.print();                                     // f32[5] [0, 0.3022128, ...]
}
