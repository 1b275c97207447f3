// pendulum.cpp — examples/pendulum.c in C++ (cjax.hpp): the same swing-up by
// jit(value_and_grad(loss)) of a scan, printing exactly what the C prints.
#include <cjax.hpp>
#include <cstdio>
using namespace cjax;

int main() {
    context ctx;
    auto step = [](array s, array u) {  // (angle, rate), torque
        array th = s[0], w = s[1];
        array w2 = w + 0.05 * (-9.81 * sin(th) - 0.1 * w + u);
        array th2 = th + 0.05 * w2;
        return std::pair{stack({th2, w2}), th2};
    };
    auto loss = [&](array u) {
        auto [s, ths] = scan(step, zeros({2}), u);
        return square(s[0] - 3.14159265358979) + square(s[1]) + 1e-3 * sum(u * u);
    };
    auto vg = jit(value_and_grad(loss));
    array u = zeros({100});
    for (int i = 0; i < 300; i++)
        update(u, [&](array u) {
            auto [l, g] = vg(u);
            if (i % 100 == 0) std::printf("%d %.9g\n", i, l.item());
            return u - 0.5 * g;
        });
    std::printf("%.9g\n", vg(u).first.item());
    auto v = u.to_vector<float>();
    for (int i = 0; i < 100; i++) std::printf("%.9g%c", v[i], i % 10 == 9 ? '\n' : ' ');
}
