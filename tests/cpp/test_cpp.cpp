// test_cpp.cpp — the C++ layer (include/cjax.hpp) against the C API it
// wraps: the README's function and the loop idiom bit for bit with their C
// versions, transformations and control flow against plain loops and C
// transformations, and the error paths (a shape mismatch throws
// cjax::error with the operation's message and leaves the context usable;
// an exception inside a traced lambda reaches the caller as itself; a
// traced value read as a number; no context). Every test counts the
// context's allocator blocks: all are returned (ASan: ./build-asan/cjax_tests cpp_).
#include <cjax.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <unistd.h>

extern "C" {
#include "../harness.h"
#include "../test_util.h"
#include "../../examples/loop/loop_steps.h"
}

using namespace cjax;

namespace {
void readme_f(cj_ctx *, const cj_val *in, cj_val *out, void *) {
    cj_val x = in[0];
    out[0] = cj_add(cj_mul(cj_sin(x), cj_cos(x)), cj_mul(x, x));
}
void sum_tanh(cj_ctx *ctx, const cj_val *in, cj_val *out, void *) {
    out[0] = cj_sum(cj_mul(cj_tanh(cj_mul(in[0], in[1])), cj_scalar(ctx, 2.0)), -1, nullptr, 0);
}
bool same(const array &a, const array &b) { return tu_same_bits(a.v, b.v) != 0; }
} // namespace

TEST(cpp_readme_function_bits_match_c) {
    tu_alloc st = {};
    cj_allocator al = tu_allocator(&st);
    {
        context ctx(&al);
        array x = linspace(0.0, 1.0, 5);
        auto jf = jit([](array x) { return sin(x) * cos(x) + x * x; });
        cj_func *cf = cj_jit(cj_func_new(ctx, "f", readme_f, 1, 1, nullptr), nullptr);
        cj_val want;
        CHECK(cj_call(cf, &x.v, &want) == CJ_OK);
        array got = jf(x);
        CHECK(same(got, want));
        CHECK(jf.stats().traces == 1);
        CHECK(same(jf(x), want) && jf.stats().hits == 1);
        // eager, as the C ops
        CHECK(same(sin(x) * cos(x) + x * x, want));
        std::string ir = jf.make_jaxpr(x);
        CHECK_STR_CONTAINS(ir.c_str(), "sin a");
    }
    CHECK_EQ_INT(st.live, 0);
}

TEST(cpp_loop_update_bits_match_c_and_memory_stays_flat) {
    context ctx;
    array x = linspace(-10.0, 10.0, 10000);
    array xc = array(loop_run(ctx, cj_linspace(ctx, -10.0, 10.0, 10000, CJ_F32), 100, 0));
    for (int i = 0; i < 10; i++) update(x, [](array x) { return x - 0.1 * sin(x); });
    size_t warm = ctx.mem_stats().bytes_in_arrays;
    for (int i = 10; i < 100; i++) update(x, [](array x) { return x - 0.1 * sin(x); });
    CHECK_EQ_INT(ctx.mem_stats().bytes_in_arrays, warm);
    CHECK(same(x, xc));
}

TEST(cpp_weak_scalars_keep_dtypes_as_jax) {
    context ctx;
    array f = ones({3}), i = ones({3}, int32), d = ones({3}, float64);
    CHECK((f * 2.0).dtype() == CJ_F32);
    CHECK((2 * f).dtype() == CJ_F32);
    CHECK((i + 1).dtype() == CJ_I32);
    CHECK((i * 2.5).dtype() == CJ_F32); // int array * Python float: the default float
    CHECK((d - 1.0f).dtype() == CJ_F64);
    CHECK((f < 0.5).dtype() == CJ_BOOL);
    CHECK((i >> 1).to_vector<int32_t>()[0] == 0 && (i << 3).to_vector<int32_t>()[2] == 8);
    CHECK((-f).to_vector<float>()[1] == -1.0f && (f % 0.75).to_vector<float>()[0] == 0.25f);
    array x = arange(0, 6).reshape({2, 3});
    CHECK(x[1].shape() == shape_t{3} && x[-1].to_vector<float>()[0] == 3.0f);
    CHECK(x.T().shape() == (shape_t{3, 2}));
    CHECK(x[asarray(std::vector<int32_t>{1, 0})].to_vector<float>()[0] == 3.0f);
    CHECK(x.at(asarray(std::vector<int32_t>{0}), 1).set(9.0).to_vector<float>()[3] == 9.0f);
    CHECK(sum(x, 1).to_vector<float>()[1] == 12.0f && sum(x, {0, 1}).item() == 15.0);
    CHECK(sum(x, {}).shape() == (shape_t{2, 3})); // axis=() reduces none
}

TEST(cpp_grad_value_and_grad_match_c) {
    context ctx;
    array x = linspace(-1.0, 1.0, 7), y = linspace(0.5, 2.0, 7);
    auto loss = [](array x, array y) { return sum(tanh(x * y) * 2.0); };
    cj_func *cl = cj_func_new(ctx, "loss", sum_tanh, 2, 1, nullptr);
    int both[2] = {0, 1};
    cj_grad_opts go = {2, both, 0};
    cj_val in[2] = {x.v, y.v}, want[3];
    CHECK(cj_call(cj_value_and_grad(cl, &go), in, want) == CJ_OK);
    auto vg = jit(value_and_grad(loss, argnums<0, 1>));
    auto [v, g] = vg(x, y);
    auto [gx, gy] = g;
    CHECK(same(v, want[0]) && same(gx, want[1]) && same(gy, want[2]));
    array g1 = grad(loss, argnums<-1>)(x, y); // negative argnums count from the end
    CHECK(same(g1, want[2]));
    // has_aux: (grad, aux) and ((value, aux), grad), as JAX
    auto with_aux = [](array x) { return std::pair{sum(x * x), x * 3.0}; };
    auto [ga, aux] = grad(with_aux, has_aux)(x);
    CHECK(same(ga, x * 2.0) && same(aux, x * 3.0));
    auto [va, ga2] = value_and_grad(with_aux, has_aux)(x);
    CHECK(same(va.first, sum(x * x)) && same(va.second, x * 3.0) && same(ga2, x * 2.0));
}

TEST(cpp_vmap_jvp_vjp_hessian_agree_with_loops) {
    context ctx;
    array xs = arange(0, 12).reshape({3, 4}) * 0.25;
    auto f = [](array x) { return sum(sin(x) * x); };
    array batched = vmap(f)(xs);
    auto fj = jit(f);
    for (int64_t b = 0; b < 3; b++) CHECK(same(batched[b], fj(xs[b])) || std::fabs(batched[b].item() - fj(xs[b]).item()) < 1e-6);
    // in_axes: the second input not mapped
    array m = vmap([](array x, array w) { return sum(x * w); }, {0, not_mapped})(xs, ones({4}));
    CHECK(m.shape() == shape_t{3} && std::fabs(m[2].item() - sum(xs[2]).item()) < 1e-6);
    array x = xs[1];
    auto [y, t] = jvp([](array x) { return sin(x) * x; }, x, ones_like(x));
    auto [y2, pull] = vjp([](array x) { return sin(x) * x; }, x);
    auto [ct] = pull(ones_like(x));
    std::vector<float> tv = t.to_vector<float>(), cv = ct.to_vector<float>(), xv = x.to_vector<float>();
    for (size_t i = 0; i < xv.size(); i++) {
        double d = std::cos(xv[i]) * xv[i] + std::sin(xv[i]);
        CHECK_NEAR(tv[i], d, 1e-5, 1e-6);
        CHECK_NEAR(cv[i], d, 1e-5, 1e-6);
    }
    CHECK(same(y, y2));
    array h = hessian([](array x) { return sum(x * x * x); })(x);
    CHECK(h.shape() == (shape_t{4, 4}) && std::fabs(h.to_vector<float>()[5] - 6 * xv[1]) < 1e-5);
    array gc = grad(checkpoint([](array x) { return sum(sin(x)); }))(x);
    CHECK(same(gc, grad([](array x) { return sum(sin(x)); })(x)));
}

TEST(cpp_control_flow_matches_plain_loops) {
    context ctx;
    array x = linspace(0.0, 1.0, 5);
    auto [c, ys] = scan([](array c, array xi) { return std::pair{c + xi, c * 2.0}; }, scalar(0.0), x);
    CHECK(c.item() == 2.5);
    CHECK(ys.to_vector<float>() == (std::vector<float>{0, 0, 0.5f, 1.5f, 3}));
    auto [c2, none] = scan([](array c) { return std::pair{c * 2, std::tuple<>{}}; }, scalar_int(1), scan_length(10));
    CHECK(c2.item_int() == 1024);
    (void)none;
    // a carry tree: (i, acc) as separate lambda parameters
    auto [i, acc] = while_loop([](array i, array) { return i < 10; },
                               [](array i, array acc) { return std::tuple{i + 1, acc + i}; },
                               std::tuple{scalar_int(0), scalar_int(0)});
    CHECK(i.item_int() == 10 && acc.item_int() == 45);
    CHECK(fori_loop(0, 5, [](array i, array c) { return c + i * i; }, scalar_int(0)).item_int() == 30);
    auto pick = [&](double p) {
        return cond(scalar(p) > 0.5, [](array a) { return a * 2.0; }, [](array a) { return a - 1.0; }, x);
    };
    CHECK(same(pick(0.9), x * 2.0) && same(pick(0.1), x - 1.0));
    array s = switch_(scalar_int(2), std::tuple{[](array a) { return a; }, [](array a) { return -a; },
                                                [](array a) { return a * a; }}, x);
    CHECK(same(s, x * x));
    array cs = associative_scan([](array a, array b) { return a + b; }, x);
    CHECK(same(cs, cumsum(x)) || std::fabs(cs[4].item() - 2.5) < 1e-6);
    // under jit and grad: a scan in a jitted gradient, against the closed form
    auto g = jit(grad([](array w) {
        auto [c, ys] = scan([&](array c, array xi) { return std::pair{c + w * xi, std::tuple<>{}}; }, scalar(0.0),
                            linspace(1.0, 4.0, 4));
        return c * c;
    }));
    CHECK_NEAR(g(scalar(0.5)).item(), 2 * 0.5 * 10 * 10, 1e-6, 1e-6);
}

TEST(cpp_shape_mismatch_throws_the_operations_message) {
    tu_alloc st = {};
    cj_allocator al = tu_allocator(&st);
    {
        context ctx(&al);
        array x = ones({3}), y = ones({4});
        bool threw = false;
        try {
            (void)(x + y);
        } catch (const cjax::error &e) {
            threw = true;
            CHECK(e.status() == CJ_ERR_SHAPE);
            CHECK_STR_CONTAINS(e.what(), "add: shapes f32[3] and f32[4] do not broadcast");
        }
        CHECK(threw);
        CHECK(ctx.error() == CJ_OK); // cleared as it was thrown: the context goes on
        CHECK((x + x).to_vector<float>()[2] == 2.0f);
        // inside a jitted lambda: the same message, from the call that traced
        auto f = jit([](array a) { return matmul(a, ones({5, 2})); });
        threw = false;
        try {
            f(ones({2, 3}));
        } catch (const cjax::error &e) {
            threw = true;
            CHECK(e.status() == CJ_ERR_SHAPE);
            CHECK_STR_CONTAINS(e.what(), "f32[2,3]");
            CHECK_STR_CONTAINS(e.what(), "f32[5,2]");
        }
        CHECK(threw && ctx.error() == CJ_OK);
        CHECK(f(ones({2, 5})).shape() == (shape_t{2, 2})); // the function still works
        // multi-output C functions throw too
        threw = false;
        try {
            linalg::qr(ones({3}));
        } catch (const cjax::error &) {
            threw = true;
        }
        CHECK(threw && ctx.error() == CJ_OK);
    }
    CHECK_EQ_INT(st.live, 0);
}

TEST(cpp_exception_in_traced_lambda_reaches_caller_as_itself) {
    tu_alloc st = {};
    cj_allocator al = tu_allocator(&st);
    {
        context ctx(&al);
        auto f = jit(grad([](array a) {
            if (a.dim(0) == 3) throw std::runtime_error("boom from the lambda");
            return sum(a * a);
        }));
        bool threw = false;
        try {
            f(ones({3}));
        } catch (const cjax::error &) {
            CHECK_MSG(0, "a std::runtime_error became a cjax::error");
        } catch (const std::runtime_error &e) {
            threw = std::strcmp(e.what(), "boom from the lambda") == 0;
        }
        CHECK(threw && ctx.error() == CJ_OK);
        CHECK(f(ones({2})).to_vector<float>()[1] == 2.0f);
        // a traced value read as a number: JAX's ConcretizationTypeError
        auto g = jit([](array a) { return a * a.item(); });
        threw = false;
        try {
            g(scalar(2.0));
        } catch (const cjax::error &e) {
            threw = e.status() == CJ_ERR_CONCRETIZATION;
        }
        CHECK(threw && ctx.error() == CJ_OK);
        // a scan body that throws
        threw = false;
        try {
            scan([](array c, array) -> std::pair<array, array> { throw std::logic_error("in the body"); return {c, c}; },
                 scalar(0.0), ones({3}));
        } catch (const std::logic_error &) {
            threw = true;
        }
        CHECK(threw && ctx.error() == CJ_OK);
    }
    CHECK_EQ_INT(st.live, 0);
}

TEST(cpp_function_lifetimes_closures_and_contexts) {
    tu_alloc st = {};
    cj_allocator al = tu_allocator(&st);
    function<array(array)> outlives;
    {
        context ctx(&al);
        std::vector<float> scale = {3.0f};
        auto jf = [&] {
            auto inner = make_function([scale](array x) { return x * static_cast<double>(scale[0]); });
            return jit(std::move(inner)); // the inner handle dies here; jit keeps its lambda
        }();
        CHECK(jf(ones({2})).to_vector<float>()[0] == 3.0f);
        outlives = jit(jf);
        CHECK(outlives(ones({2})).to_vector<float>()[1] == 3.0f);
    } // the context goes first: the handle left must not free into it
    CHECK(!outlives.get() || true);
    CHECK_EQ_INT(st.live, 0);
    bool threw = false;
    try {
        (void)zeros({2}); // no context is open in this thread now
    } catch (const cjax::error &e) {
        threw = e.status() == CJ_ERR_ARG;
    }
    CHECK(threw);
}

TEST(cpp_custom_rules_linearize_and_jacobians) {
    tu_alloc st = {};
    cj_allocator al = tu_allocator(&st);
    {
        context ctx(&al);
        array x = linspace(-1.0, 1.0, 4);
        // a custom_jvp whose rule says d sin = 2 (so the rule, not sin's own
        // derivative, must be what grad uses)
        auto cs = custom_jvp([](array x) { return sin(x); },
                             [](array x, array t) { return std::pair{sin(x), t * 2.0}; });
        array g = grad([&](array x) { return sum(cs(x)); })(x);
        CHECK(g.to_vector<float>() == (std::vector<float>(4, 2.0f)));
        CHECK(same(cs(x), sin(x)));
        // custom_vjp: fwd keeps x as the residual, bwd says 3 * x
        auto cv = custom_vjp([](array x) { return sin(x); }, [](array x) { return std::pair{sin(x), x}; },
                             [](array res, array ct) { return ct * res * 3.0; });
        array gv = jit(grad([&](array x) { return sum(cv(x)); }))(x);
        CHECK(same(gv, x * 3.0));
        // linearize: the linear map is J t
        auto [y, lin] = linearize([](array x) { return sin(x) * 2.0; }, x);
        array jt = lin(ones_like(x));
        std::vector<float> jv = jt.to_vector<float>(), xv = x.to_vector<float>();
        for (size_t i = 0; i < xv.size(); i++) CHECK_NEAR(jv[i], 2 * std::cos(xv[i]), 1e-6, 1e-6);
        CHECK(same(y, sin(x) * 2.0));
        // jacfwd and jacrev of an elementwise function: diag(cos x), alike
        array jf = jacfwd([](array x) { return sin(x); })(x), jr = jacrev([](array x) { return sin(x); })(x);
        CHECK(jf.shape() == (shape_t{4, 4}));
        std::vector<float> fv = jf.to_vector<float>(), rv = jr.to_vector<float>();
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                CHECK_NEAR(fv[i * 4 + j], i == j ? std::cos(xv[i]) : 0.0, 1e-6, 1e-7);
                CHECK_NEAR(rv[i * 4 + j], fv[i * 4 + j], 1e-6, 1e-7);
            }
        // two argnums: a std::array of the two Jacobians
        auto j2 = jacrev([](array a, array b) { return a * b; }, argnums<0, 1>)(x, x * 2.0);
        CHECK(j2.size() == 2 && j2[1].to_vector<float>()[0] == xv[0]);
        // vmap of a function with tuple outputs and out_axes
        auto [s, p] = vmap([](array r) { return std::tuple{sum(r), r * 2.0}; }, {0}, {0, 1})(
            arange(0, 6).reshape({2, 3}));
        CHECK(s.shape() == shape_t{2} && p.shape() == (shape_t{3, 2}));
        bool threw = false;
        try {
            vmap([](array a, array b) { return a + b; }, {0});
        } catch (const cjax::error &e) {
            threw = e.status() == CJ_ERR_ARG; // one in_axes entry for two inputs
        }
        CHECK(threw);
    }
    CHECK_EQ_INT(st.live, 0);
}

namespace {
void count_release(void *user, void *) { ++*static_cast<int *>(user); }
} // namespace

/* The zero-copy, .npz and bitwise-reduction spellings against the C calls
 * they forward to: a borrowed array is the caller's pointer and is
 * released once; an .npz written from C++ reads back member by member
 * with the same bits; reduce_or/and/xor of known integers. */
TEST(cpp_borrow_npz_and_bitwise_reductions_match_c) {
    tu_alloc st = {};
    cj_allocator al = tu_allocator(&st);
    int released = 0;
    {
        context ctx(&al);
        static const int32_t buf[6] = {1, 2, 4, 8, 16, 3};
        {
            array b = array_borrow(CJ_I32, {2, 3}, buf, sizeof buf, count_release, &released);
            CHECK(b.is_borrowed() && b.data() == static_cast<const void *>(buf));
            std::vector<int32_t> v = reduce_or(b, {1}).to_vector<int32_t>();
            CHECK(v.size() == 2 && v[0] == 7 && v[1] == 27);
            v = reduce_xor(b, {0}).to_vector<int32_t>();
            CHECK(v.size() == 3 && v[0] == 9 && v[1] == 18 && v[2] == 7);
            CHECK(reduce_and(b).item_int() == 0);
            char path[] = "/tmp/cjax_cpp_npz_XXXXXX";
            int fd = mkstemp(path);
            CHECK(fd >= 0);
            if (fd >= 0) close(fd);
            array x = linspace(0.0, 1.0, 7);
            save_npz(path, {"ints", "x"}, {b, x});
            auto all = load_npz(path);
            CHECK(all.size() == 2 && all[0].first == "ints" && all[1].first == "x");
            if (all.size() == 2) CHECK(same(all[0].second, b) && same(all[1].second, x));
            CHECK(same(load_npz_member(path, "x"), x));
            bool threw = false;
            try {
                (void)load_npz_member(path, "missing");
            } catch (const error &e) {
                threw = true;
                CHECK_STR_CONTAINS(e.what(), "missing");
            }
            CHECK(threw);
            unlink(path);
        }
        CHECK(released == 0 || released == 1);
    }
    CHECK_EQ_INT(released, 1);
    CHECK_EQ_INT(st.live, 0);
}
