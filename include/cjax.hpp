/* cjax.hpp — cjax for C++17: the C API of cjax.h with RAII, operators and
 * lambdas as traced functions. Header-only and optional: it only calls
 * the public C functions, so it works with the installed libcjax as is.
 *
 *     #include <cjax.hpp>
 *     int main() {
 *         cjax::context ctx;                               // current in this thread
 *         auto x = cjax::linspace(0.0, 1.0, 5);
 *         auto f = cjax::jit([](cjax::array x) { return sin(x) * cos(x) + x * x; });
 *         f(x).print();                                    // f32[5] [0, 0.3022128, ...]
 *         auto df = cjax::grad([](cjax::array x) { return sum(tanh(x) * 2.0); });
 *     }
 *
 * The model is the C one (docs/CPP.md says it in full):
 * - cjax::context owns a cj_ctx (freed by its destructor, move-only). Made,
 *   it becomes this thread's current context (a stack: the newest living
 *   one), which the functions that create arrays or function objects use
 *   when none is passed. Everything else finds its context from operands.
 * - cjax::array is a cj_val: a handle, copied freely, whose array lives in
 *   the scope it was made in (cjax::scope / cjax::scoped end one early),
 *   not as long as the handle. Operators follow jax.numpy: x * 2.0 makes a
 *   weakly typed scalar, so an f32 x stays f32.
 * - Errors throw cjax::error carrying the C message ("add: shapes f32[3]
 *   and f32[4] do not broadcast") and its cj_status; the context's sticky
 *   error is cleared as it is thrown, so the context stays usable. With
 *   CJAX_NO_EXCEPTIONS defined (or exceptions off: -fno-exceptions) nothing
 *   throws: errors are sticky as in C (context::error()).
 * - cjax::function<R(A...)> is a function object (move-only; its
 *   destructor calls cj_func_free). Lambdas become traced functions: the
 *   closure is held by the function object and by every transformation
 *   made from it (jit(f) keeps f's lambda alive), and released with the
 *   last of them; a lambda that captures by reference must not outlive
 *   what it refers to. Arguments and results are arrays or tuples /
 *   pairs / std::arrays of them (nested), flattened in order.
 * - An exception thrown inside a traced lambda (by cjax or by the user)
 *   is carried across the C frames and rethrown from the call that ran
 *   the trace, as itself. */
#ifndef CJAX_HPP
#define CJAX_HPP

#include <cjax.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if !defined(CJAX_NO_EXCEPTIONS) && !defined(__cpp_exceptions) && !defined(__EXCEPTIONS)
#define CJAX_NO_EXCEPTIONS
#endif
#ifndef CJAX_NO_EXCEPTIONS
#include <exception>
#include <stdexcept>
#endif

namespace cjax {

/* ---- dtypes and constants --------------------------------------------- */
inline constexpr cj_dtype bool_ = CJ_BOOL, int8 = CJ_I8, int16 = CJ_I16, int32 = CJ_I32, int64 = CJ_I64,
                          uint8 = CJ_U8, uint16 = CJ_U16, uint32 = CJ_U32, uint64 = CJ_U64, float16 = CJ_F16,
                          bfloat16 = CJ_BF16, float32 = CJ_F32, float64 = CJ_F64;
/* vmap's None (in_axes / out_axes) and jnp's axis=None. */
inline constexpr int64_t not_mapped = CJ_NOT_MAPPED;
inline constexpr int64_t axis_none = CJ_AXIS_NONE;
inline const char *dtype_name(cj_dtype dt) { return cj_dtype_name(dt); }
inline size_t dtype_size(cj_dtype dt) { return cj_dtype_size(dt); }
inline const char *status_name(cj_status s) { return cj_status_name(s); }

#ifndef CJAX_NO_EXCEPTIONS
/* What every failing cjax call throws: the C error's text and status. */
class error : public std::runtime_error {
    cj_status status_;

  public:
    error(cj_status status, const std::string &message) : std::runtime_error(message), status_(status) {}
    cj_status status() const noexcept { return status_; }
};
#endif

class array;
class context;

namespace detail {
/* The context's heap state: function objects hold a weak reference, so one
 * that outlives its context does not free into a dead one. */
struct ctx_state {
    cj_ctx *ctx;
};
inline std::vector<std::weak_ptr<ctx_state>> &ctx_stack() {
    static thread_local std::vector<std::weak_ptr<ctx_state>> s;
    return s;
}
/* Depth of traced lambdas running on this thread: errors inside one stay
 * sticky (the C caller unwinds on them) and are cleared at depth 0. */
inline int &depth() {
    static thread_local int d = 0;
    return d;
}
struct depth_guard {
    depth_guard() { depth()++; }
    ~depth_guard() { depth()--; }
    depth_guard(const depth_guard &) = delete;
    depth_guard &operator=(const depth_guard &) = delete;
};
#ifndef CJAX_NO_EXCEPTIONS
/* An exception caught in a trampoline, waiting for the C call to return. */
inline std::exception_ptr &pending() {
    static thread_local std::exception_ptr p;
    return p;
}
#endif
/* Throws the context's error (no-exceptions: leaves it sticky). */
inline void raise(cj_ctx *ctx) {
#ifndef CJAX_NO_EXCEPTIONS
    cj_status st = cj_error(ctx);
    std::string msg = cj_error_message(ctx);
    if (st == CJ_OK) st = CJ_ERR_INTERNAL, msg = "cjax: an operation failed without recording an error";
    if (depth() == 0) cj_error_clear(ctx);
    throw error(st, msg);
#else
    (void)ctx;
#endif
}
#ifndef CJAX_NO_EXCEPTIONS
[[noreturn]] inline void throw_arg(const std::string &msg) { throw error(CJ_ERR_ARG, msg); }
#endif
/* After a C call: an exception from a traced lambda first, as itself;
 * then the C error. */
inline void after(cj_ctx *ctx, bool failed) {
#ifndef CJAX_NO_EXCEPTIONS
    if (pending()) {
        std::exception_ptr e = pending();
        pending() = nullptr;
        if (depth() == 0) cj_error_clear(ctx); /* the error it caused in C */
        std::rethrow_exception(e);
    }
#endif
    if (failed) raise(ctx);
}
inline void check(cj_ctx *ctx, cj_status st) { after(ctx, st != CJ_OK); }
inline cj_ctx *current(cj_ctx *given) {
    if (given) return given;
    if (!ctx_stack().empty())
        if (auto s = ctx_stack().back().lock()) return s->ctx;
#ifndef CJAX_NO_EXCEPTIONS
    throw_arg("cjax: no cjax::context is open in this thread (make one, or pass one)");
#else
    return nullptr;
#endif
}
/* The liveness of the cjax::context that owns ctx (empty for a cj_ctx
 * made in C: function objects then live until cj_ctx_free). */
inline std::weak_ptr<ctx_state> alive_of(cj_ctx *ctx) {
    for (auto &w : ctx_stack())
        if (auto s = w.lock())
            if (s->ctx == ctx) return w;
    return {};
}
} // namespace detail

/* ---- contexts and scopes ---------------------------------------------- */
class context {
    std::shared_ptr<detail::ctx_state> st_;

    void pop() {
        auto &s = detail::ctx_stack();
        for (size_t i = s.size(); i-- > 0;)
            if (s[i].lock() == st_ || s[i].expired()) {
                s.erase(s.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
    }

  public:
    /* cj_ctx_new(alloc); becomes the current context of this thread. */
    explicit context(const cj_allocator *alloc = nullptr) {
        cj_ctx *c = cj_ctx_new(alloc);
#ifndef CJAX_NO_EXCEPTIONS
        if (!c) throw cjax::error(CJ_ERR_OOM, "cjax::context: cj_ctx_new failed (out of memory)");
#endif
        st_ = std::make_shared<detail::ctx_state>(detail::ctx_state{c});
        detail::ctx_stack().push_back(st_);
    }
    ~context() { reset(); }
    context(context &&o) noexcept : st_(std::move(o.st_)) {}
    context &operator=(context &&o) noexcept {
        if (this != &o) {
            reset();
            st_ = std::move(o.st_);
        }
        return *this;
    }
    context(const context &) = delete;
    context &operator=(const context &) = delete;
    /* Frees the context and everything made in it (cj_ctx_free). */
    void reset() {
        if (!st_) return;
        pop();
        cj_ctx_free(st_->ctx);
        st_.reset();
    }
    cj_ctx *get() const { return st_ ? st_->ctx : nullptr; }
    operator cj_ctx *() const { return get(); }
    /* Makes this the current context of the calling thread again. */
    void make_current() {
        if (!st_) return;
        pop();
        detail::ctx_stack().push_back(st_);
    }
    cj_status error() const { return cj_error(get()); }
    std::string error_message() const { return cj_error_message(get()); }
    void clear_error() { cj_error_clear(get()); }
    cj_mem_stats mem_stats() const {
        cj_mem_stats m{};
        cj_mem_stats_get(get(), &m);
        return m;
    }
    void trim() { cj_mem_trim(get()); }
    void clear_caches() { cj_clear_caches(get()); }
    std::weak_ptr<detail::ctx_state> alive() const { return st_; }
};

/* ---- arrays ------------------------------------------------------------ */
class at_ref;

class array {
  public:
    cj_val v;

    array() noexcept : v{nullptr, 0, 0} {}
    array(cj_val c) noexcept : v(c) {}
    cj_val c() const noexcept { return v; }
    cj_ctx *ctx() const noexcept { return v.ctx; }

    bool is_error() const { return cj_is_error(v) != 0; }
    cj_dtype dtype() const { return cj_val_dtype(v); }
    int rank() const { return cj_val_rank(v); }
    int ndim() const { return cj_val_rank(v); }
    int64_t dim(int axis) const { return cj_val_dim(v, axis); }
    int64_t size() const { return cj_val_size(v); }
    bool weak() const { return cj_val_weak(v) != 0; }
    bool is_traced() const { return cj_val_is_traced(v) != 0; }
    std::vector<int64_t> shape() const {
        int64_t d[CJ_MAX_RANK];
        int r = cj_val_shape(v, d);
        return r < 0 ? std::vector<int64_t>{} : std::vector<int64_t>(d, d + r);
    }
    /* "f32[3,4]". */
    std::string type_str() const {
        char b[160];
        return cj_val_type_str(v, b, sizeof b);
    }
    cj_spec spec() const { return cj_spec_of(v); }
    /* The single element (cj_item): a traced array throws the
     * concretization error, as JAX's float(x). */
    double item() const {
        double d = 0;
        detail::check(v.ctx, cj_item(v, &d));
        return d;
    }
    int64_t item_int() const {
        int64_t d = 0;
        detail::check(v.ctx, cj_item_int(v, &d));
        return d;
    }
    /* The elements converted to T (float, double, int32_t, ...), row-major. */
    template <class T> std::vector<T> to_vector() const;
    /* The elements in the array's own dtype into buf (cj_read). */
    void read(void *buf, size_t bytes) const { detail::check(v.ctx, cj_read(v, buf, bytes)); }
    void print(FILE *out = stdout) const { cj_print(v, out); }
    void save_npy(const std::string &path) const { detail::check(v.ctx, cj_save_npy(v, path.c_str())); }
    /* Does it view caller memory (cj_array_borrow, from_dlpack)? */
    bool is_borrowed() const { return cj_array_is_borrowed(v) != 0; }
    /* The elements in place, read-only, valid while the array lives (cj_array_data). */
    const void *data() const {
        const void *p = cj_array_data(v);
        detail::after(v.ctx, p == nullptr);
        return p;
    }
    /* Frees the array now (cj_val_free): for the state a loop replaces. */
    void free() { cj_val_free(v), v = cj_val{nullptr, 0, 0}; }

    inline array astype(cj_dtype dt) const;
    inline array reshape(const std::vector<int64_t> &shape) const;
    inline array T() const; /* reversed axes */
    /* x[i]: along axis 0 (negative from the end), the axis dropped. */
    inline array operator[](int64_t i) const;
    /* x[idx]: jnp's integer-array indexing along axis 0 (take). */
    inline array operator[](const array &idx) const;
    /* x.at[idx] along axis (jnp's x.at[(:,)*axis + (idx,)]).set/add/... */
    inline at_ref at(const array &idx, int64_t axis = 0) const;

    template <class B> array &operator+=(const B &b);
    template <class B> array &operator-=(const B &b);
    template <class B> array &operator*=(const B &b);
    template <class B> array &operator/=(const B &b);
};

namespace detail {
/* A result: an error value throws the context's error. */
inline array wrap(cj_val r) {
    if (r.slot == 0) after(r.ctx, true);
    return array(r);
}
/* A C++ number as JAX's Python scalar: weakly typed (f32 / i32). */
template <class S> cj_val weak(cj_ctx *ctx, S s) {
    static_assert(std::is_arithmetic_v<S> && !std::is_same_v<S, bool>, "cjax: a scalar operand is a number");
    if constexpr (std::is_integral_v<S>)
        return cj_scalar_int(ctx, static_cast<int64_t>(s));
    else
        return cj_scalar(ctx, static_cast<double>(s));
}
template <class S> inline constexpr bool is_scalar_v = std::is_arithmetic_v<S> && !std::is_same_v<S, bool>;
template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr cj_dtype value = CJ_F32; };
template <> struct dtype_of<double> { static constexpr cj_dtype value = CJ_F64; };
template <> struct dtype_of<int8_t> { static constexpr cj_dtype value = CJ_I8; };
template <> struct dtype_of<int16_t> { static constexpr cj_dtype value = CJ_I16; };
template <> struct dtype_of<int32_t> { static constexpr cj_dtype value = CJ_I32; };
template <> struct dtype_of<int64_t> { static constexpr cj_dtype value = CJ_I64; };
template <> struct dtype_of<uint8_t> { static constexpr cj_dtype value = CJ_U8; };
template <> struct dtype_of<uint16_t> { static constexpr cj_dtype value = CJ_U16; };
template <> struct dtype_of<uint32_t> { static constexpr cj_dtype value = CJ_U32; };
template <> struct dtype_of<uint64_t> { static constexpr cj_dtype value = CJ_U64; };
inline std::vector<cj_val> vals(const std::vector<array> &xs) {
    std::vector<cj_val> o;
    o.reserve(xs.size());
    for (const array &a : xs) o.push_back(a.v);
    return o;
}
inline std::vector<array> arrays(const std::vector<cj_val> &xs) { return std::vector<array>(xs.begin(), xs.end()); }
inline cj_ctx *ctx_of(const std::vector<array> &xs) { return xs.empty() ? nullptr : xs[0].v.ctx; }
} // namespace detail

template <class T> std::vector<T> array::to_vector() const {
    int64_t n = size();
    std::vector<T> out(n > 0 ? static_cast<size_t>(n) : 0);
    detail::check(v.ctx, cj_read_as(v, detail::dtype_of<T>::value, out.data(), out.size() * sizeof(T)));
    return out;
}

/* An axis list for reductions, squeeze and flip: every axis by default
 * (NumPy's axis=None, axes::all()), one axis, or a list ({} is none, as
 * axis=()). */
class axes {
    bool all_ = true;
    std::vector<int64_t> v_;
    struct all_tag {};
    explicit axes(all_tag) {}

  public:
    /* Every axis (the default); {} is the empty list. */
    static axes all() { return axes(all_tag{}); }
    axes(int64_t a) : all_(false), v_{a} {}
    axes(int a) : all_(false), v_{a} {}
    axes(std::initializer_list<int64_t> l) : all_(false), v_(l) {}
    axes(std::vector<int64_t> v) : all_(false), v_(std::move(v)) {}
    int n() const { return all_ ? -1 : static_cast<int>(v_.size()); }
    const int64_t *data() const {
        static const int64_t none = 0; /* not NULL: NULL means all */
        return all_ ? nullptr : v_.empty() ? &none : v_.data();
    }
};
using shape_t = std::vector<int64_t>;

/* jax.ShapeDtypeStruct (cj_spec_make). */
inline cj_spec spec(cj_dtype dt, const std::vector<int64_t> &shape) {
    return cj_spec_make(dt, static_cast<int>(shape.size()), shape.empty() ? nullptr : shape.data());
}

namespace detail {
inline const int64_t *opt(const shape_t &v) { return v.empty() ? nullptr : v.data(); }
inline int rank_of(const shape_t &s) { return static_cast<int>(s.size()); }
} // namespace detail

/* Scopes: values made while one is open are freed when it ends, except
 * those kept (which move to the enclosing scope). */
class scope {
    cj_ctx *ctx_;
    std::vector<cj_val> keep_;
    bool open_ = true;

  public:
    explicit scope(cj_ctx *ctx = nullptr) : ctx_(detail::current(ctx)) { cj_scope_begin(ctx_); }
    ~scope() { end(); }
    scope(const scope &) = delete;
    scope &operator=(const scope &) = delete;
    void keep(const array &a) { keep_.push_back(a.v); }
    template <class... A> void keep(const array &a, const A &...rest) {
        keep(a);
        keep(rest...);
    }
    void end() {
        if (!open_) return;
        open_ = false;
        cj_scope_end(ctx_, static_cast<int>(keep_.size()), keep_.data());
    }
};

/* ---- operators --------------------------------------------------------- */
#define CJAX_HPP_BINOP(op, fn)                                                                                       \
    inline array operator op(const array &a, const array &b) { return detail::wrap(fn(a.v, b.v)); }                  \
    template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array operator op(const array &a, S b) {   \
        return detail::wrap(fn(a.v, detail::weak(a.v.ctx, b)));                                                      \
    }                                                                                                                \
    template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array operator op(S a, const array &b) {   \
        return detail::wrap(fn(detail::weak(b.v.ctx, a), b.v));                                                      \
    }
CJAX_HPP_BINOP(+, cj_add)
CJAX_HPP_BINOP(-, cj_sub)
CJAX_HPP_BINOP(*, cj_mul)
CJAX_HPP_BINOP(/, cj_div)
CJAX_HPP_BINOP(%, cj_remainder)
CJAX_HPP_BINOP(==, cj_eq)
CJAX_HPP_BINOP(!=, cj_ne)
CJAX_HPP_BINOP(<, cj_lt)
CJAX_HPP_BINOP(<=, cj_le)
CJAX_HPP_BINOP(>, cj_gt)
CJAX_HPP_BINOP(>=, cj_ge)
CJAX_HPP_BINOP(&, cj_and)
CJAX_HPP_BINOP(|, cj_or)
CJAX_HPP_BINOP(^, cj_xor)
CJAX_HPP_BINOP(<<, cj_shift_left)
#undef CJAX_HPP_BINOP
namespace detail {
/* jnp's >>: arithmetic for signed integers, logical for unsigned ones. */
inline cj_val shift_right(cj_val a, cj_val b) {
    cj_dtype d = cj_val_dtype(a);
    bool u = d == CJ_U8 || d == CJ_U16 || d == CJ_U32 || d == CJ_U64;
    return u ? cj_shift_right_logical(a, b) : cj_shift_right_arithmetic(a, b);
}
} // namespace detail
inline array operator>>(const array &a, const array &b) { return detail::wrap(detail::shift_right(a.v, b.v)); }
template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array operator>>(const array &a, S b) {
    return detail::wrap(detail::shift_right(a.v, detail::weak(a.v.ctx, b)));
}
inline array operator-(const array &a) { return detail::wrap(cj_neg(a.v)); }
inline array operator+(const array &a) { return a; }
inline array operator~(const array &a) { return detail::wrap(cj_not(a.v)); }
inline array operator!(const array &a) { return detail::wrap(cj_not(a.v)); }

template <class B> array &array::operator+=(const B &b) { return *this = *this + b; }
template <class B> array &array::operator-=(const B &b) { return *this = *this - b; }
template <class B> array &array::operator*=(const B &b) { return *this = *this * b; }
template <class B> array &array::operator/=(const B &b) { return *this = *this / b; }

/* ---- creating arrays (ctx: the current context when omitted) ---------- */
template <class T> array asarray(const std::vector<T> &data, const shape_t &shape, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_array(detail::current(ctx), detail::dtype_of<T>::value, detail::rank_of(shape),
                                 detail::opt(shape), data.data()));
}
/* A 1-D array of the values. */
template <class T> array asarray(const std::vector<T> &data, cj_ctx *ctx = nullptr) {
    return asarray(data, shape_t{static_cast<int64_t>(data.size())}, ctx);
}
inline array from_buffer(cj_dtype dt, const shape_t &shape, const void *data, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_array(detail::current(ctx), dt, detail::rank_of(shape), detail::opt(shape), data));
}
/* Weakly typed (JAX's Python scalar), or of a dtype. */
inline array scalar(double x, cj_ctx *ctx = nullptr) { return detail::wrap(cj_scalar(detail::current(ctx), x)); }
inline array scalar_int(int64_t x, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_scalar_int(detail::current(ctx), x));
}
inline array scalar(double x, cj_dtype dt, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_scalar_typed(detail::current(ctx), x, dt));
}
inline array zeros(const shape_t &shape, cj_dtype dt = CJ_F32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_zeros(detail::current(ctx), dt, detail::rank_of(shape), detail::opt(shape)));
}
inline array ones(const shape_t &shape, cj_dtype dt = CJ_F32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_ones(detail::current(ctx), dt, detail::rank_of(shape), detail::opt(shape)));
}
inline array full(const shape_t &shape, double x, cj_dtype dt = CJ_F32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_full(detail::current(ctx), x, dt, detail::rank_of(shape), detail::opt(shape)));
}
inline array arange(double start, double stop, double step = 1, cj_dtype dt = CJ_F32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_arange(detail::current(ctx), start, stop, step, dt));
}
inline array linspace(double start, double stop, int64_t num, cj_dtype dt = CJ_F32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_linspace(detail::current(ctx), start, stop, num, dt));
}
inline array eye(int64_t n, int64_t m = -1, int64_t k = 0, cj_dtype dt = CJ_F32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_eye(detail::current(ctx), n, m < 0 ? n : m, k, dt));
}
inline array iota(const shape_t &shape, int64_t axis, cj_dtype dt = CJ_I32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_iota(detail::current(ctx), dt, detail::rank_of(shape), detail::opt(shape), axis));
}
inline array tri(int64_t n, int64_t m = -1, int64_t k = 0, cj_dtype dt = CJ_F32, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_tri(detail::current(ctx), n, m, k, dt));
}
inline array zeros_like(const array &x) { return detail::wrap(cj_zeros_like(x.v)); }
inline array ones_like(const array &x) { return detail::wrap(cj_ones_like(x.v)); }
inline array load_npy(const std::string &path, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_load_npy(detail::current(ctx), path.c_str()));
}
inline void save_npy(const array &x, const std::string &path) { x.save_npy(path); }
/* Caller memory as a read-only array without a copy (cj_array_borrow):
 * release(user, data) runs once when cjax drops it. */
inline array array_borrow(cj_dtype dt, const shape_t &shape, const void *data, size_t size,
                          cj_release_fn release = nullptr, void *user = nullptr, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_array_borrow(detail::current(ctx), dt, detail::rank_of(shape), detail::opt(shape), data,
                                        size, release, user));
}
/* DLPack in (takes ownership of t, as cj_from_dlpack) and out. */
inline array from_dlpack(struct DLManagedTensor *t, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_from_dlpack(detail::current(ctx), t));
}
inline array from_dlpack_versioned(struct DLManagedTensorVersioned *t, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_from_dlpack_versioned(detail::current(ctx), t));
}
inline struct DLManagedTensor *to_dlpack(const array &x) {
    struct DLManagedTensor *t = cj_to_dlpack(x.v);
    detail::after(x.v.ctx, t == nullptr);
    return t;
}
inline struct DLManagedTensorVersioned *to_dlpack_versioned(const array &x) {
    struct DLManagedTensorVersioned *t = cj_to_dlpack_versioned(x.v);
    detail::after(x.v.ctx, t == nullptr);
    return t;
}
/* .npz (numpy.savez / savez_compressed): flags CJ_NPZ_DEFLATE compresses. */
inline bool npz_deflate_available() { return cj_npz_deflate_available() != 0; }
inline void save_npz(const std::string &path, const std::vector<std::string> &names, const std::vector<array> &xs,
                     int flags = 0) {
    std::vector<const char *> n;
    for (const std::string &s : names) n.push_back(s.c_str());
    if (!names.empty() && names.size() != xs.size()) {
#ifndef CJAX_NO_EXCEPTIONS
        detail::throw_arg("cjax::save_npz: " + std::to_string(names.size()) + " names for " +
                          std::to_string(xs.size()) + " arrays");
#else
        return; /* nothing written */
#endif
    }
    std::vector<cj_val> v = detail::vals(xs);
    cj_ctx *c = detail::ctx_of(xs);
    detail::check(c, cj_save_npz(path.c_str(), static_cast<int>(v.size()), names.empty() ? nullptr : n.data(),
                                 v.empty() ? nullptr : v.data(), flags));
}
inline void save_npz(const std::string &path, const std::vector<array> &xs, int flags = 0) {
    save_npz(path, std::vector<std::string>{}, xs, flags);
}
/* Every member, in the archive's order, as (name, array). */
inline std::vector<std::pair<std::string, array>> load_npz(const std::string &path, cj_ctx *ctx = nullptr) {
    cj_ctx *c = detail::current(ctx);
    int n = cj_load_npz(c, path.c_str(), nullptr, 0);
    detail::after(c, n < 0);
    std::vector<cj_npz_entry> e(static_cast<size_t>(n > 0 ? n : 1));
    int m = n > 0 ? cj_load_npz(c, path.c_str(), e.data(), n) : 0;
    detail::after(c, m < 0);
    std::vector<std::pair<std::string, array>> r;
    for (int i = 0; i < m && i < n; i++) r.emplace_back(e[static_cast<size_t>(i)].name, array(e[static_cast<size_t>(i)].val));
    return r;
}
inline array load_npz_member(const std::string &path, const std::string &name, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_load_npz_member(detail::current(ctx), path.c_str(), name.c_str()));
}
inline void print(const array &x, FILE *out = stdout) { x.print(out); }

/* ---- elementwise (jax.numpy names; the C name where it is jnp's) ------- */
#define CJAX_HPP_UNARY(name, fn)                                                                                     \
    inline array name(const array &x) { return detail::wrap(fn(x.v)); }
#define CJAX_HPP_BINARY(name, fn)                                                                                    \
    inline array name(const array &a, const array &b) { return detail::wrap(fn(a.v, b.v)); }                         \
    template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array name(const array &a, S b) {          \
        return detail::wrap(fn(a.v, detail::weak(a.v.ctx, b)));                                                      \
    }                                                                                                                \
    template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array name(S a, const array &b) {          \
        return detail::wrap(fn(detail::weak(b.v.ctx, a), b.v));                                                      \
    }
CJAX_HPP_UNARY(negative, cj_neg)
CJAX_HPP_UNARY(abs, cj_abs)
CJAX_HPP_UNARY(sign, cj_sign)
CJAX_HPP_UNARY(floor, cj_floor)
CJAX_HPP_UNARY(ceil, cj_ceil)
CJAX_HPP_UNARY(round, cj_round)
CJAX_HPP_UNARY(exp, cj_exp)
CJAX_HPP_UNARY(exp2, cj_exp2)
CJAX_HPP_UNARY(log, cj_log)
CJAX_HPP_UNARY(log1p, cj_log1p)
CJAX_HPP_UNARY(expm1, cj_expm1)
CJAX_HPP_UNARY(sqrt, cj_sqrt)
CJAX_HPP_UNARY(rsqrt, cj_rsqrt)
CJAX_HPP_UNARY(cbrt, cj_cbrt)
CJAX_HPP_UNARY(sin, cj_sin)
CJAX_HPP_UNARY(cos, cj_cos)
CJAX_HPP_UNARY(tan, cj_tan)
CJAX_HPP_UNARY(arcsin, cj_asin)
CJAX_HPP_UNARY(arccos, cj_acos)
CJAX_HPP_UNARY(arctan, cj_atan)
CJAX_HPP_UNARY(sinh, cj_sinh)
CJAX_HPP_UNARY(cosh, cj_cosh)
CJAX_HPP_UNARY(tanh, cj_tanh)
CJAX_HPP_UNARY(logistic, cj_logistic)
CJAX_HPP_UNARY(erf, cj_erf)
CJAX_HPP_UNARY(bitwise_not, cj_not)
CJAX_HPP_UNARY(isfinite, cj_is_finite)
CJAX_HPP_UNARY(population_count, cj_population_count)
CJAX_HPP_UNARY(lgamma, cj_lgamma)
CJAX_HPP_UNARY(digamma, cj_digamma)
CJAX_HPP_UNARY(erfc, cj_erfc)
CJAX_HPP_UNARY(erfinv, cj_erfinv)
CJAX_HPP_UNARY(arcsinh, cj_asinh)
CJAX_HPP_UNARY(arccosh, cj_acosh)
CJAX_HPP_UNARY(arctanh, cj_atanh)
CJAX_HPP_UNARY(log2, cj_log2)
CJAX_HPP_UNARY(log10, cj_log10)
CJAX_HPP_UNARY(isnan, cj_isnan)
CJAX_HPP_UNARY(isinf, cj_isinf)
CJAX_HPP_UNARY(isposinf, cj_isposinf)
CJAX_HPP_UNARY(isneginf, cj_isneginf)
CJAX_HPP_UNARY(signbit, cj_signbit)
CJAX_HPP_UNARY(sinc, cj_sinc)
CJAX_HPP_UNARY(reciprocal, cj_reciprocal)
CJAX_HPP_UNARY(trunc, cj_trunc)
CJAX_HPP_UNARY(deg2rad, cj_deg2rad)
CJAX_HPP_UNARY(rad2deg, cj_rad2deg)
CJAX_HPP_UNARY(stop_gradient, cj_stop_gradient)
CJAX_HPP_UNARY(relu, cj_relu)
CJAX_HPP_UNARY(gelu, cj_gelu)
CJAX_HPP_UNARY(sigmoid, cj_sigmoid)
CJAX_HPP_UNARY(square, cj_square)
CJAX_HPP_UNARY(atleast_1d, cj_atleast_1d)
CJAX_HPP_UNARY(atleast_2d, cj_atleast_2d)
CJAX_HPP_UNARY(atleast_3d, cj_atleast_3d)
CJAX_HPP_UNARY(silu, cj_silu)
CJAX_HPP_UNARY(swish, cj_swish)
CJAX_HPP_UNARY(softplus, cj_softplus)
CJAX_HPP_UNARY(log_sigmoid, cj_log_sigmoid)
CJAX_HPP_UNARY(mish, cj_mish)
CJAX_HPP_UNARY(selu, cj_selu)
CJAX_HPP_UNARY(gelu_exact, cj_gelu_exact)
CJAX_HPP_UNARY(relu6, cj_relu6)
CJAX_HPP_UNARY(hard_sigmoid, cj_hard_sigmoid)
CJAX_HPP_UNARY(hard_silu, cj_hard_silu)
CJAX_HPP_UNARY(hard_tanh, cj_hard_tanh)
CJAX_HPP_UNARY(sparse_plus, cj_sparse_plus)
CJAX_HPP_UNARY(sparse_sigmoid, cj_sparse_sigmoid)
CJAX_HPP_UNARY(soft_sign, cj_soft_sign)
CJAX_HPP_UNARY(log1mexp, cj_log1mexp)
CJAX_HPP_BINARY(add, cj_add)
CJAX_HPP_BINARY(subtract, cj_sub)
CJAX_HPP_BINARY(multiply, cj_mul)
CJAX_HPP_BINARY(divide, cj_div)
CJAX_HPP_BINARY(rem, cj_rem)
CJAX_HPP_BINARY(power, cj_pow)
CJAX_HPP_BINARY(maximum, cj_max)
CJAX_HPP_BINARY(minimum, cj_min)
CJAX_HPP_BINARY(arctan2, cj_atan2)
CJAX_HPP_BINARY(equal, cj_eq)
CJAX_HPP_BINARY(not_equal, cj_ne)
CJAX_HPP_BINARY(less, cj_lt)
CJAX_HPP_BINARY(less_equal, cj_le)
CJAX_HPP_BINARY(greater, cj_gt)
CJAX_HPP_BINARY(greater_equal, cj_ge)
CJAX_HPP_BINARY(bitwise_and, cj_and)
CJAX_HPP_BINARY(bitwise_or, cj_or)
CJAX_HPP_BINARY(bitwise_xor, cj_xor)
CJAX_HPP_BINARY(left_shift, cj_shift_left)
CJAX_HPP_BINARY(shift_right_logical, cj_shift_right_logical)
CJAX_HPP_BINARY(shift_right_arithmetic, cj_shift_right_arithmetic)
CJAX_HPP_BINARY(polygamma, cj_polygamma)
CJAX_HPP_BINARY(logaddexp, cj_logaddexp)
CJAX_HPP_BINARY(logaddexp2, cj_logaddexp2)
CJAX_HPP_BINARY(xlogy, cj_xlogy)
CJAX_HPP_BINARY(xlog1py, cj_xlog1py)
CJAX_HPP_BINARY(hypot, cj_hypot)
CJAX_HPP_BINARY(remainder, cj_remainder)
CJAX_HPP_BINARY(mod, cj_mod)
CJAX_HPP_BINARY(floor_divide, cj_floor_divide)
CJAX_HPP_BINARY(nextafter, cj_nextafter)
CJAX_HPP_BINARY(copysign, cj_copysign)
CJAX_HPP_BINARY(heaviside, cj_heaviside)
CJAX_HPP_BINARY(outer, cj_outer)
CJAX_HPP_BINARY(cross, cj_cross)
CJAX_HPP_BINARY(kron, cj_kron)
CJAX_HPP_BINARY(matmul, cj_matmul)
#undef CJAX_HPP_UNARY
#undef CJAX_HPP_BINARY
inline array right_shift(const array &a, const array &b) { return a >> b; }
inline array pow(const array &a, const array &b) { return power(a, b); }
template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array pow(const array &a, S b) {
    return power(a, b);
}
inline array bitcast_convert_type(const array &x, cj_dtype dt) {
    return detail::wrap(cj_bitcast_convert_type(x.v, dt));
}
inline array where(const array &c, const array &a, const array &b) { return detail::wrap(cj_where(c.v, a.v, b.v)); }
template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array where(const array &c, const array &a, S b) {
    return detail::wrap(cj_where(c.v, a.v, detail::weak(a.v.ctx, b)));
}
template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array where(const array &c, S a, const array &b) {
    return detail::wrap(cj_where(c.v, detail::weak(b.v.ctx, a), b.v));
}
inline array clamp(const array &lo, const array &x, const array &hi) {
    return detail::wrap(cj_clamp(lo.v, x.v, hi.v));
}
inline array astype(const array &x, cj_dtype dt) { return detail::wrap(cj_astype(x.v, dt)); }
inline array integer_pow(const array &x, int64_t y) { return detail::wrap(cj_integer_pow(x.v, y)); }
inline array clip(const array &x, double lo, double hi) { return detail::wrap(cj_clip(x.v, lo, hi)); }
inline array elu(const array &x, double alpha = 1.0) { return detail::wrap(cj_elu(x.v, alpha)); }
inline array celu(const array &x, double alpha = 1.0) { return detail::wrap(cj_celu(x.v, alpha)); }
inline array leaky_relu(const array &x, double slope = 0.01) { return detail::wrap(cj_leaky_relu(x.v, slope)); }
inline array squareplus(const array &x, double b = 4.0) { return detail::wrap(cj_squareplus(x.v, b)); }
inline array glu(const array &x, int64_t axis = -1) { return detail::wrap(cj_glu(x.v, axis)); }
inline array softmax(const array &x, int64_t axis = -1) { return detail::wrap(cj_softmax(x.v, axis)); }
inline array log_softmax(const array &x, int64_t axis = -1) { return detail::wrap(cj_log_softmax(x.v, axis)); }
inline array standardize(const array &x, const axes &ax = axes{-1}, double epsilon = 1e-5) {
    return detail::wrap(cj_standardize(x.v, ax.n(), ax.data(), epsilon));
}
/* mean / variance: pass an empty array() for "computed". */
inline array standardize_with(const array &x, const axes &ax, const array &mean, const array &variance,
                              double epsilon = 1e-5, const char *algorithm = nullptr) {
    return detail::wrap(cj_standardize_with(x.v, ax.n(), ax.data(), mean.v.slot ? &mean.v : nullptr,
                                            variance.v.slot ? &variance.v : nullptr, epsilon, algorithm));
}
inline array one_hot(const array &idx, int64_t num_classes, cj_dtype dt = CJ_F32, int64_t axis = -1) {
    return detail::wrap(axis == -1 ? cj_one_hot(idx.v, num_classes, dt) : cj_one_hot_axis(idx.v, num_classes, dt, axis));
}
inline array checkpoint_name(const array &x, const std::string &name) {
    return detail::wrap(cj_checkpoint_name(x.v, name.c_str()));
}

/* ---- shapes ------------------------------------------------------------ */
inline array broadcast_in_dim(const array &x, const shape_t &shape, const shape_t &dims) {
    return detail::wrap(cj_broadcast_in_dim(x.v, detail::rank_of(shape), detail::opt(shape), detail::opt(dims)));
}
inline array broadcast_to(const array &x, const shape_t &shape) {
    return detail::wrap(cj_broadcast_to(x.v, detail::rank_of(shape), detail::opt(shape)));
}
inline array reshape(const array &x, const shape_t &shape) {
    return detail::wrap(cj_reshape(x.v, detail::rank_of(shape), detail::opt(shape)));
}
/* perm {}: the axes reversed. */
inline array transpose(const array &x, const shape_t &perm = {}) {
    return detail::wrap(cj_transpose(x.v, detail::opt(perm)));
}
inline array squeeze(const array &x, const axes &ax = axes::all()) {
    return detail::wrap(cj_squeeze(x.v, ax.n(), ax.data()));
}
inline array expand_dims(const array &x, int64_t axis) { return detail::wrap(cj_expand_dims(x.v, axis)); }
inline array slice(const array &x, const shape_t &start, const shape_t &limit, const shape_t &strides = {}) {
    return detail::wrap(cj_slice(x.v, start.data(), limit.data(), detail::opt(strides)));
}
inline array dynamic_slice(const array &x, const std::vector<array> &start, const shape_t &sizes) {
    std::vector<cj_val> s = detail::vals(start);
    return detail::wrap(cj_dynamic_slice(x.v, s.data(), sizes.data()));
}
inline array dynamic_update_slice(const array &x, const array &update, const std::vector<array> &start) {
    std::vector<cj_val> s = detail::vals(start);
    return detail::wrap(cj_dynamic_update_slice(x.v, update.v, s.data()));
}
inline array concatenate(const std::vector<array> &xs, int64_t axis = 0) {
    std::vector<cj_val> s = detail::vals(xs);
    return detail::wrap(cj_concatenate(static_cast<int>(s.size()), s.data(), axis));
}
inline array pad(const array &x, const array &value, const shape_t &lo, const shape_t &hi,
                 const shape_t &interior = {}) {
    return detail::wrap(cj_pad(x.v, value.v, lo.data(), hi.data(), detail::opt(interior)));
}
inline array rev(const array &x, const shape_t &dims) {
    return detail::wrap(cj_rev(x.v, detail::rank_of(dims), dims.data()));
}
#define CJAX_HPP_LIST(name, fn)                                                                                      \
    inline array name(const std::vector<array> &xs) {                                                                \
        std::vector<cj_val> s = detail::vals(xs);                                                                    \
        return detail::wrap(fn(static_cast<int>(s.size()), s.data()));                                              \
    }
CJAX_HPP_LIST(hstack, cj_hstack)
CJAX_HPP_LIST(vstack, cj_vstack)
CJAX_HPP_LIST(dstack, cj_dstack)
CJAX_HPP_LIST(column_stack, cj_column_stack)
#undef CJAX_HPP_LIST
inline array stack(const std::vector<array> &xs, int64_t axis = 0) {
    std::vector<cj_val> s = detail::vals(xs);
    return detail::wrap(cj_stack(static_cast<int>(s.size()), s.data(), axis));
}
inline array tile(const array &x, const shape_t &reps) {
    return detail::wrap(cj_tile(x.v, detail::rank_of(reps), reps.data()));
}
inline array repeat(const array &x, int64_t repeats, int64_t axis = axis_none) {
    return detail::wrap(cj_repeat(x.v, repeats, axis));
}
inline array repeat(const array &x, const array &repeats, int64_t axis, int64_t total_repeat_length = -1) {
    return detail::wrap(cj_repeat_each(x.v, repeats.v, axis, total_repeat_length));
}
/* axes {}: the flattened x rolled. */
inline array roll(const array &x, const shape_t &shifts, const shape_t &ax = {}) {
    return detail::wrap(cj_roll(x.v, detail::rank_of(shifts), shifts.data(), detail::opt(ax)));
}
inline array roll(const array &x, const array &shift, int64_t axis) {
    return detail::wrap(cj_roll_dynamic(x.v, shift.v, axis));
}
inline array flip(const array &x, const axes &ax = axes::all()) { return detail::wrap(cj_flip(x.v, ax.n(), ax.data())); }
inline array moveaxis(const array &x, const shape_t &source, const shape_t &destination) {
    return detail::wrap(cj_moveaxis(x.v, detail::rank_of(source), source.data(), destination.data()));
}
inline array moveaxis(const array &x, int64_t source, int64_t destination) {
    return detail::wrap(cj_moveaxis(x.v, 1, &source, &destination));
}
inline array swapaxes(const array &x, int64_t a, int64_t b) { return detail::wrap(cj_swapaxes(x.v, a, b)); }
namespace detail {
template <class F> std::vector<array> outs(cj_ctx *ctx, size_t n, F call) {
    std::vector<cj_val> o(n > 0 ? n : 1);
    cj_status st = call(o.data());
    check(ctx, st);
    o.resize(n);
    return arrays(o);
}
} // namespace detail
inline std::vector<array> broadcast_arrays(const std::vector<array> &xs) {
    std::vector<cj_val> s = detail::vals(xs);
    return detail::outs(detail::ctx_of(xs), s.size(),
                        [&](cj_val *o) { return cj_broadcast_arrays(static_cast<int>(s.size()), s.data(), o); });
}
inline std::vector<array> split(const array &x, int64_t sections, int64_t axis = 0) {
    return detail::outs(x.v.ctx, static_cast<size_t>(sections > 0 ? sections : 0),
                        [&](cj_val *o) { return cj_split(x.v, sections, axis, o); });
}
inline std::vector<array> array_split(const array &x, int64_t sections, int64_t axis = 0) {
    return detail::outs(x.v.ctx, static_cast<size_t>(sections > 0 ? sections : 0),
                        [&](cj_val *o) { return cj_array_split(x.v, sections, axis, o); });
}
inline std::vector<array> split(const array &x, const shape_t &indices, int64_t axis = 0) {
    return detail::outs(x.v.ctx, indices.size() + 1, [&](cj_val *o) {
        return cj_split_indices(x.v, detail::rank_of(indices), indices.data(), axis, o);
    });
}
inline std::vector<array> meshgrid(const std::vector<array> &xs, const char *indexing = "xy", bool sparse = false) {
    std::vector<cj_val> s = detail::vals(xs);
    return detail::outs(detail::ctx_of(xs), s.size(), [&](cj_val *o) {
        return cj_meshgrid(static_cast<int>(s.size()), s.data(), indexing, sparse, o);
    });
}

/* ---- reductions -------------------------------------------------------- */
#define CJAX_HPP_REDUCE(name, fn)                                                                                    \
    inline array name(const array &x, const axes &ax = axes::all(), bool keepdims = false) {                              \
        return detail::wrap(fn(x.v, ax.n(), ax.data(), keepdims));                                                   \
    }
CJAX_HPP_REDUCE(sum, cj_sum)
CJAX_HPP_REDUCE(prod, cj_prod)
CJAX_HPP_REDUCE(max, cj_reduce_max)
CJAX_HPP_REDUCE(min, cj_reduce_min)
CJAX_HPP_REDUCE(mean, cj_mean)
CJAX_HPP_REDUCE(any, cj_any)
CJAX_HPP_REDUCE(all, cj_all)
CJAX_HPP_REDUCE(reduce_and, cj_reduce_and)
CJAX_HPP_REDUCE(reduce_or, cj_reduce_or)
CJAX_HPP_REDUCE(reduce_xor, cj_reduce_xor)
CJAX_HPP_REDUCE(nansum, cj_nansum)
CJAX_HPP_REDUCE(nanprod, cj_nanprod)
CJAX_HPP_REDUCE(nanmax, cj_nanmax)
CJAX_HPP_REDUCE(nanmin, cj_nanmin)
CJAX_HPP_REDUCE(nanmean, cj_nanmean)
CJAX_HPP_REDUCE(ptp, cj_ptp)
CJAX_HPP_REDUCE(count_nonzero, cj_count_nonzero)
CJAX_HPP_REDUCE(logsumexp, cj_logsumexp)
CJAX_HPP_REDUCE(median, cj_median)
#undef CJAX_HPP_REDUCE
inline array amax(const array &x, const axes &ax = axes::all(), bool keepdims = false) { return max(x, ax, keepdims); }
inline array amin(const array &x, const axes &ax = axes::all(), bool keepdims = false) { return min(x, ax, keepdims); }
inline array var(const array &x, const axes &ax = axes::all(), int64_t ddof = 0, bool keepdims = false) {
    return detail::wrap(ddof == 0 ? cj_var(x.v, ax.n(), ax.data(), keepdims)
                                  : cj_var_ddof(x.v, ax.n(), ax.data(), ddof, keepdims));
}
inline array std_(const array &x, const axes &ax = axes::all(), int64_t ddof = 0, bool keepdims = false) {
    return detail::wrap(cj_std(x.v, ax.n(), ax.data(), ddof, keepdims));
}
inline array nanvar(const array &x, const axes &ax = axes::all(), int64_t ddof = 0, bool keepdims = false) {
    return detail::wrap(cj_nanvar(x.v, ax.n(), ax.data(), ddof, keepdims));
}
inline array nanstd(const array &x, const axes &ax = axes::all(), int64_t ddof = 0, bool keepdims = false) {
    return detail::wrap(cj_nanstd(x.v, ax.n(), ax.data(), ddof, keepdims));
}
#define CJAX_HPP_ARGRED(name, fn)                                                                                    \
    inline array name(const array &x, int64_t axis = -1, bool keepdims = false) {                                    \
        return detail::wrap(fn(x.v, axis, keepdims));                                                                \
    }
CJAX_HPP_ARGRED(argmax, cj_argmax)
CJAX_HPP_ARGRED(argmin, cj_argmin)
CJAX_HPP_ARGRED(nanargmax, cj_nanargmax)
CJAX_HPP_ARGRED(nanargmin, cj_nanargmin)
#undef CJAX_HPP_ARGRED
#define CJAX_HPP_CUM(name, fn)                                                                                       \
    inline array name(const array &x, int64_t axis = 0, bool reverse = false) {                                      \
        return detail::wrap(fn(x.v, axis, reverse));                                                                 \
    }
CJAX_HPP_CUM(cumsum, cj_cumsum)
CJAX_HPP_CUM(cumprod, cj_cumprod)
CJAX_HPP_CUM(cummax, cj_cummax)
CJAX_HPP_CUM(cummin, cj_cummin)
CJAX_HPP_CUM(cumlogsumexp, cj_cumlogsumexp)
#undef CJAX_HPP_CUM
/* jnp.average: (mean, sum of weights). */
inline std::pair<array, array> average_returned(const array &x, const axes &ax = axes::all(), bool keepdims = false) {
    cj_val w{};
    array m = detail::wrap(cj_average(x.v, ax.n(), ax.data(), keepdims, &w));
    return {m, array(w)};
}
inline array average(const array &x, const axes &ax = axes::all(), bool keepdims = false) {
    return detail::wrap(cj_average(x.v, ax.n(), ax.data(), keepdims, nullptr));
}
inline array average(const array &x, const array &weights, const axes &ax = axes::all(), bool keepdims = false) {
    return detail::wrap(cj_average_weighted(x.v, weights.v, ax.n(), ax.data(), keepdims, nullptr));
}
inline std::pair<array, array> average_returned(const array &x, const array &weights, const axes &ax = axes::all(),
                                                bool keepdims = false) {
    cj_val w{};
    array m = detail::wrap(cj_average_weighted(x.v, weights.v, ax.n(), ax.data(), keepdims, &w));
    return {m, array(w)};
}
inline array quantile(const array &x, const array &q, const axes &ax = axes::all(), const char *method = nullptr,
                      bool keepdims = false) {
    return detail::wrap(cj_quantile(x.v, q.v, ax.n(), ax.data(), method, keepdims));
}

/* ---- products, convolution, windows ----------------------------------- */
inline array dot_general(const array &a, const array &b, const shape_t &a_contract, const shape_t &b_contract,
                         const shape_t &a_batch = {}, const shape_t &b_batch = {}) {
    return detail::wrap(cj_dot_general(a.v, b.v, detail::rank_of(a_contract), a_contract.data(), b_contract.data(),
                                       detail::rank_of(a_batch), a_batch.data(), b_batch.data()));
}
inline array dot_general(const array &a, const array &b, const shape_t &a_contract, const shape_t &b_contract,
                         const shape_t &a_batch, const shape_t &b_batch, cj_dtype preferred) {
    return detail::wrap(cj_dot_general_preferred(a.v, b.v, detail::rank_of(a_contract), a_contract.data(),
                                                 b_contract.data(), detail::rank_of(a_batch), a_batch.data(),
                                                 b_batch.data(), preferred));
}
inline array matmul(const array &a, const array &b, cj_dtype preferred) {
    return detail::wrap(cj_matmul_preferred(a.v, b.v, preferred));
}
inline std::vector<int64_t> padtype_to_pads(const shape_t &in, const shape_t &window, const shape_t &strides,
                                            cj_padding type) {
    std::vector<int64_t> pads(2 * in.size());
    if (cj_padtype_to_pads(detail::rank_of(in), in.data(), window.data(), detail::opt(strides), type, pads.data()) < 0)
#ifndef CJAX_NO_EXCEPTIONS
        detail::throw_arg("cjax::padtype_to_pads: bad argument");
#else
        pads.clear();
#endif
    return pads;
}
inline array conv_general_dilated(const array &lhs, const array &rhs, const cj_conv_opts &opts = cj_conv_opts{}) {
    return detail::wrap(cj_conv_general_dilated(lhs.v, rhs.v, &opts));
}
inline array conv(const array &lhs, const array &rhs, const shape_t &strides = {}, cj_padding padding = CJ_PAD_VALID) {
    return detail::wrap(cj_conv(lhs.v, rhs.v, detail::opt(strides), padding));
}
inline array reduce_window(const array &x, cj_window_reduction kind, const shape_t &window,
                           const cj_window_opts &opts = cj_window_opts{}) {
    return detail::wrap(cj_reduce_window(x.v, kind, detail::opt(window), &opts));
}
#define CJAX_HPP_POOL(name, fn)                                                                                      \
    inline array name(const array &x, const shape_t &window, const cj_pool_opts &opts = cj_pool_opts{}) {           \
        return detail::wrap(fn(x.v, detail::rank_of(window), window.data(), &opts));                                 \
    }
CJAX_HPP_POOL(max_pool, cj_max_pool)
CJAX_HPP_POOL(min_pool, cj_min_pool)
CJAX_HPP_POOL(avg_pool, cj_avg_pool)
#undef CJAX_HPP_POOL

/* ---- numpy matrix functions ------------------------------------------- */
inline array diagonal(const array &x, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1) {
    return detail::wrap(cj_diagonal(x.v, offset, axis1, axis2));
}
inline array trace(const array &x, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1) {
    return detail::wrap(cj_trace(x.v, offset, axis1, axis2));
}
inline array diag(const array &v, int64_t k = 0) { return detail::wrap(cj_diag(v.v, k)); }
inline array tril(const array &x, int64_t k = 0) { return detail::wrap(cj_tril(x.v, k)); }
inline array triu(const array &x, int64_t k = 0) { return detail::wrap(cj_triu(x.v, k)); }

/* ---- jnp.linalg / jax.scipy.linalg ------------------------------------ */
namespace linalg {
inline array cholesky(const array &a) { return detail::wrap(cj_linalg_cholesky(a.v)); }
/* (q, r); mode "r": q is an empty array(). */
inline std::pair<array, array> qr(const array &a, const char *mode = "reduced") {
    cj_val q{}, r{};
    int rc = cj_linalg_qr(a.v, mode, &q, &r);
    detail::after(a.v.ctx, rc != 0);
    return {array(q), array(r)};
}
/* (w, v): eigenvalues ascending, eigenvectors as columns (JAX's order). */
inline std::pair<array, array> eigh(const array &a) {
    cj_val v{}, w{};
    detail::after(a.v.ctx, cj_linalg_eigh(a.v, &v, &w) != 0);
    return {array(w), array(v)};
}
inline array eigvalsh(const array &a) { return detail::wrap(cj_linalg_eigvalsh(a.v)); }
/* (u, s, vt). */
inline std::tuple<array, array, array> svd(const array &a, bool full_matrices = false) {
    cj_val u{}, s{}, vt{};
    detail::after(a.v.ctx, cj_linalg_svd(a.v, full_matrices, &u, &s, &vt) != 0);
    return {array(u), array(s), array(vt)};
}
inline array svdvals(const array &a) { return detail::wrap(cj_linalg_svdvals(a.v)); }
inline array norm(const array &x, const char *ord = nullptr, const shape_t &ax = {}) {
    return detail::wrap(cj_linalg_norm(x.v, ord, detail::rank_of(ax), detail::opt(ax)));
}
inline array cond(const array &x) { return detail::wrap(cj_linalg_cond(x.v)); }
inline array pinv(const array &a, double rtol = -1) { return detail::wrap(cj_linalg_pinv(a.v, rtol)); }
/* (x, residuals, rank, singular values). */
inline std::tuple<array, array, array, array> lstsq(const array &a, const array &b, double rcond = -1) {
    cj_val x{}, res{}, rk{}, s{};
    detail::after(a.v.ctx, cj_linalg_lstsq(a.v, b.v, rcond, &x, &res, &rk, &s) != 0);
    return {array(x), array(res), array(rk), array(s)};
}
/* jax.lax.linalg.lu: (lu, pivots, permutation). */
inline std::tuple<array, array, array> lu(const array &a) {
    cj_val o[3] = {};
    detail::after(a.v.ctx, cj_linalg_lu(a.v, o) != 0);
    return {array(o[0]), array(o[1]), array(o[2])};
}
inline array solve_triangular(const array &a, const array &b, bool lower = false, bool trans = false,
                              bool unit_diagonal = false) {
    return detail::wrap(cj_linalg_triangular_solve(a.v, b.v, lower, trans, unit_diagonal));
}
inline array cho_solve(const array &c, const array &b, bool lower = true) {
    return detail::wrap(cj_linalg_cho_solve(c.v, b.v, lower));
}
inline array lu_solve(const array &lu, const array &perm, const array &b) {
    return detail::wrap(cj_linalg_lu_solve(lu.v, perm.v, b.v));
}
inline array solve(const array &a, const array &b) { return detail::wrap(cj_linalg_solve(a.v, b.v)); }
inline array inv(const array &a) { return detail::wrap(cj_linalg_inv(a.v)); }
inline array det(const array &a) { return detail::wrap(cj_linalg_det(a.v)); }
/* (sign, logabsdet). */
inline std::pair<array, array> slogdet(const array &a) {
    cj_val s{}, l{};
    detail::after(a.v.ctx, cj_linalg_slogdet(a.v, &s, &l) != 0);
    return {array(s), array(l)};
}
inline array matrix_power(const array &a, int64_t n) { return detail::wrap(cj_matrix_power(a.v, n)); }
} // namespace linalg

/* ---- indexing and sorting --------------------------------------------- */
inline array take(const array &x, const array &idx, int64_t axis = 0) { return detail::wrap(cj_take(x.v, idx.v, axis)); }
inline array take_along_axis(const array &x, const array &idx, int64_t axis) {
    return detail::wrap(cj_take_along_axis(x.v, idx.v, axis));
}
inline array index_add(const array &x, int64_t axis, const array &idx, const array &updates) {
    return detail::wrap(cj_index_add(x.v, axis, idx.v, updates.v));
}
inline array gather(const array &x, const array &idx, const cj_gather_dnums &dnums, const shape_t &slice_sizes,
                    cj_index_mode mode = CJ_INDEX_FILL_OR_DROP, const double *fill = nullptr) {
    return detail::wrap(cj_gather(x.v, idx.v, &dnums, slice_sizes.data(), mode, fill));
}
inline array scatter(const array &x, const array &idx, const array &updates, const cj_scatter_dnums &dnums,
                     cj_scatter_kind kind = CJ_SCATTER_SET, cj_index_mode mode = CJ_INDEX_FILL_OR_DROP) {
    return detail::wrap(cj_scatter(x.v, idx.v, updates.v, &dnums, kind, mode));
}
/* x.at(idx, axis).set(u) / .add / .multiply / .min / .max: jnp's x.at[]. */
class at_ref {
    cj_val x_, idx_;
    int64_t axis_;

  public:
    at_ref(cj_val x, cj_val idx, int64_t axis) : x_(x), idx_(idx), axis_(axis) {}
    array set(const array &u) const { return detail::wrap(cj_at_set(x_, axis_, idx_, u.v)); }
    array add(const array &u) const { return detail::wrap(cj_at_add(x_, axis_, idx_, u.v)); }
    array multiply(const array &u) const { return detail::wrap(cj_at_mul(x_, axis_, idx_, u.v)); }
    array min(const array &u) const { return detail::wrap(cj_at_min(x_, axis_, idx_, u.v)); }
    array max(const array &u) const { return detail::wrap(cj_at_max(x_, axis_, idx_, u.v)); }
    template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array set(S u) const {
        return detail::wrap(cj_at_set(x_, axis_, idx_, detail::weak(x_.ctx, u)));
    }
    template <class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0> array add(S u) const {
        return detail::wrap(cj_at_add(x_, axis_, idx_, detail::weak(x_.ctx, u)));
    }
};
inline array sort(const array &x, int64_t axis = -1) { return detail::wrap(cj_sort(x.v, axis)); }
inline std::vector<array> sort_multi(const std::vector<array> &xs, int64_t axis = -1, int num_keys = 1,
                                     bool is_stable = true) {
    std::vector<cj_val> s = detail::vals(xs);
    return detail::outs(detail::ctx_of(xs), s.size(), [&](cj_val *o) {
        return cj_sort_multi(static_cast<int>(s.size()), s.data(), axis, num_keys, is_stable, o);
    });
}
inline array argsort(const array &x, int64_t axis = -1, bool stable = true, bool descending = false) {
    return detail::wrap(cj_argsort(x.v, axis, stable, descending));
}
/* lax.top_k: (values, indices). */
inline std::pair<array, array> top_k(const array &x, int64_t k) {
    cj_val v{}, i{};
    detail::check(x.v.ctx, cj_top_k(x.v, k, &v, &i));
    return {array(v), array(i)};
}
inline array searchsorted(const array &sorted, const array &v, const char *side = "left") {
    return detail::wrap(cj_searchsorted(sorted.v, v.v, side));
}

/* ---- the array members ------------------------------------------------- */
inline array array::astype(cj_dtype dt) const { return cjax::astype(*this, dt); }
inline array array::reshape(const std::vector<int64_t> &shape) const { return cjax::reshape(*this, shape); }
inline array array::T() const { return cjax::transpose(*this); }
inline array array::operator[](int64_t i) const {
    int r = rank();
    if (r < 1) {
#ifndef CJAX_NO_EXCEPTIONS
        if (is_error()) detail::after(v.ctx, true);
        throw cjax::error(CJ_ERR_SHAPE, "cjax::array[" + std::to_string(i) + "]: " + type_str() + " has no axis to index");
#endif
    }
    int64_t n = dim(0), k = i < 0 ? i + n : i;
    if (k < 0 || k >= n) {
#ifndef CJAX_NO_EXCEPTIONS
        throw cjax::error(CJ_ERR_SHAPE, "cjax::array[" + std::to_string(i) + "]: index out of range for " + type_str());
#else
        k = k < 0 ? 0 : n - 1; /* as JAX's clamped gather */
#endif
    }
    shape_t lo(static_cast<size_t>(r > 0 ? r : 0), 0), hi = shape();
    if (r > 0) lo[0] = k, hi[0] = k + 1;
    return squeeze(slice(*this, lo, hi), axes{0});
}
inline array array::operator[](const array &idx) const { return take(*this, idx, 0); }
inline at_ref array::at(const array &idx, int64_t axis) const { return at_ref(v, idx.v, axis); }

/* ---- jax.random -------------------------------------------------------- */
namespace random {
inline array key(int64_t seed, cj_ctx *ctx = nullptr) { return detail::wrap(cj_random_key(detail::current(ctx), seed)); }
inline array PRNGKey(int64_t seed, cj_ctx *ctx = nullptr) { return key(seed, ctx); }
inline array split(const array &k, int64_t n = 2) { return detail::wrap(cj_random_split(k.v, n)); }
inline array fold_in(const array &k, const array &data) { return detail::wrap(cj_random_fold_in(k.v, data.v)); }
inline array fold_in(const array &k, int64_t data) {
    return detail::wrap(cj_random_fold_in(k.v, cj_scalar_typed(k.v.ctx, static_cast<double>(data), CJ_I64)));
}
inline array bits(const array &k, const shape_t &shape = {}, cj_dtype dt = CJ_U32) {
    return detail::wrap(dt == CJ_U32 ? cj_random_bits(k.v, detail::rank_of(shape), detail::opt(shape))
                                     : cj_random_bits_typed(k.v, dt, detail::rank_of(shape), detail::opt(shape)));
}
inline array uniform(const array &k, const shape_t &shape = {}, cj_dtype dt = CJ_F32, double minval = 0,
                     double maxval = 1) {
    return detail::wrap(cj_random_uniform(k.v, dt, detail::rank_of(shape), detail::opt(shape), minval, maxval));
}
#define CJAX_HPP_RAND(name, fn)                                                                                      \
    inline array name(const array &k, const shape_t &shape = {}, cj_dtype dt = CJ_F32) {                            \
        return detail::wrap(fn(k.v, dt, detail::rank_of(shape), detail::opt(shape)));                               \
    }
CJAX_HPP_RAND(normal, cj_random_normal)
CJAX_HPP_RAND(exponential, cj_random_exponential)
CJAX_HPP_RAND(laplace, cj_random_laplace)
CJAX_HPP_RAND(logistic, cj_random_logistic)
CJAX_HPP_RAND(cauchy, cj_random_cauchy)
CJAX_HPP_RAND(rademacher, cj_random_rademacher)
#undef CJAX_HPP_RAND
inline array gumbel(const array &k, const shape_t &shape = {}, cj_dtype dt = CJ_F32, const char *mode = nullptr) {
    return detail::wrap(mode ? cj_random_gumbel_mode(k.v, dt, detail::rank_of(shape), detail::opt(shape), mode)
                             : cj_random_gumbel(k.v, dt, detail::rank_of(shape), detail::opt(shape)));
}
inline array bernoulli(const array &k, double p = 0.5, const shape_t &shape = {}) {
    return detail::wrap(cj_random_bernoulli(k.v, p, detail::rank_of(shape), detail::opt(shape)));
}
inline array randint(const array &k, const shape_t &shape, int64_t minval, int64_t maxval, cj_dtype dt = CJ_I32) {
    return detail::wrap(cj_random_randint(k.v, detail::rank_of(shape), detail::opt(shape), minval, maxval, dt));
}
inline array permutation(const array &k, int64_t n) { return detail::wrap(cj_random_permutation(k.v, n)); }
inline array permutation(const array &k, const array &x, int64_t axis = 0) {
    return detail::wrap(cj_random_permutation_array(k.v, x.v, axis));
}
namespace detail_r {
/* shape omitted (JAX's shape=None): rank -1. */
inline int rk(const std::vector<int64_t> *s) { return s ? static_cast<int>(s->size()) : -1; }
inline const int64_t *dp(const std::vector<int64_t> *s) { return s ? s->data() : nullptr; }
} // namespace detail_r
inline array truncated_normal(const array &k, const array &lower, const array &upper, cj_dtype dt = CJ_F32,
                              const shape_t *shape = nullptr) {
    return detail::wrap(cj_random_truncated_normal(k.v, lower.v, upper.v, dt, detail_r::rk(shape), detail_r::dp(shape)));
}
inline array categorical(const array &k, const array &logits, int64_t axis = -1, const shape_t *shape = nullptr,
                         bool replace = true) {
    return detail::wrap(cj_random_categorical(k.v, logits.v, axis, detail_r::rk(shape), detail_r::dp(shape), replace));
}
/* p: an empty array() for none. */
inline array choice(const array &k, int64_t n, const shape_t &shape = {}, bool replace = true, const array &p = array()) {
    return detail::wrap(cj_random_choice(k.v, n, detail::rank_of(shape), detail::opt(shape), replace, p.v));
}
inline array choice(const array &k, const array &a, const shape_t &shape = {}, bool replace = true,
                    const array &p = array(), int64_t axis = 0) {
    return detail::wrap(cj_random_choice_array(k.v, a.v, axis, detail::rank_of(shape), detail::opt(shape), replace, p.v));
}
inline array multivariate_normal(const array &k, const array &mean, const array &cov, const shape_t *shape = nullptr,
                                 cj_dtype dt = CJ_F32, const char *method = nullptr) {
    return detail::wrap(
        cj_random_multivariate_normal(k.v, mean.v, cov.v, dt, detail_r::rk(shape), detail_r::dp(shape), method));
}
inline array orthogonal(const array &k, int64_t n, const shape_t &shape = {}, cj_dtype dt = CJ_F32) {
    return detail::wrap(cj_random_orthogonal(k.v, n, dt, detail::rank_of(shape), detail::opt(shape)));
}
#define CJAX_HPP_RAND1(name, fn)                                                                                     \
    inline array name(const array &k, const array &a, const shape_t *shape = nullptr, cj_dtype dt = CJ_F32) {       \
        return detail::wrap(fn(k.v, a.v, dt, detail_r::rk(shape), detail_r::dp(shape)));                            \
    }
CJAX_HPP_RAND1(gamma, cj_random_gamma)
CJAX_HPP_RAND1(loggamma, cj_random_loggamma)
CJAX_HPP_RAND1(dirichlet, cj_random_dirichlet)
#undef CJAX_HPP_RAND1
inline array poisson(const array &k, const array &lam, const shape_t *shape = nullptr, cj_dtype dt = CJ_I32) {
    return detail::wrap(cj_random_poisson(k.v, lam.v, dt, detail_r::rk(shape), detail_r::dp(shape)));
}
inline array gamma_grad(const array &a, const array &x) { return detail::wrap(cj_random_gamma_grad(a.v, x.v)); }
inline array beta(const array &k, const array &a, const array &b, const shape_t *shape = nullptr, cj_dtype dt = CJ_F32) {
    return detail::wrap(cj_random_beta(k.v, a.v, b.v, dt, detail_r::rk(shape), detail_r::dp(shape)));
}
inline array generalized_normal(const array &k, double p, const shape_t &shape = {}, cj_dtype dt = CJ_F32) {
    return detail::wrap(cj_random_generalized_normal(k.v, p, dt, detail::rank_of(shape), detail::opt(shape)));
}
inline array ball(const array &k, int64_t d, double p = 2, const shape_t &shape = {}, cj_dtype dt = CJ_F32) {
    return detail::wrap(cj_random_ball(k.v, d, p, dt, detail::rank_of(shape), detail::opt(shape)));
}
} // namespace random

/* ---- function objects -------------------------------------------------- */
namespace detail {
/* Trees of arrays: an array, or tuples / pairs / std::arrays of trees,
 * flattened depth first (JAX's pytrees of tuples). */
template <class T> struct tree;
template <> struct tree<array> {
    static constexpr int n = 1;
    static void flat(const array &a, cj_val *o) { o[0] = a.v; }
    static array pack(const cj_val *i) { return array(i[0]); }
};
template <class... Ts> struct tree<std::tuple<Ts...>> {
    static constexpr int n = (0 + ... + tree<Ts>::n);
    template <size_t I> static constexpr int off() {
        constexpr int sizes[] = {tree<Ts>::n..., 0};
        int s = 0;
        for (size_t k = 0; k < I; k++) s += sizes[k];
        return s;
    }
    template <size_t... I> static void flat_(const std::tuple<Ts...> &t, cj_val *o, std::index_sequence<I...>) {
        (void)t, (void)o; /* empty tuples */
        (tree<Ts>::flat(std::get<I>(t), o + off<I>()), ...);
    }
    template <size_t... I> static std::tuple<Ts...> pack_(const cj_val *i, std::index_sequence<I...>) {
        (void)i;
        return std::tuple<Ts...>(tree<Ts>::pack(i + off<I>())...);
    }
    static void flat(const std::tuple<Ts...> &t, cj_val *o) { flat_(t, o, std::index_sequence_for<Ts...>{}); }
    static std::tuple<Ts...> pack(const cj_val *i) { return pack_(i, std::index_sequence_for<Ts...>{}); }
};
template <class A, class B> struct tree<std::pair<A, B>> {
    static constexpr int n = tree<A>::n + tree<B>::n;
    static void flat(const std::pair<A, B> &t, cj_val *o) { tree<A>::flat(t.first, o), tree<B>::flat(t.second, o + tree<A>::n); }
    static std::pair<A, B> pack(const cj_val *i) { return {tree<A>::pack(i), tree<B>::pack(i + tree<A>::n)}; }
};
template <class T, size_t N> struct tree<std::array<T, N>> {
    static constexpr int n = static_cast<int>(N) * tree<T>::n;
    static void flat(const std::array<T, N> &t, cj_val *o) {
        for (size_t k = 0; k < N; k++) tree<T>::flat(t[k], o + k * tree<T>::n);
    }
    static std::array<T, N> pack(const cj_val *i) {
        return pack_(i, std::make_index_sequence<N>{});
    }
    template <size_t... I> static std::array<T, N> pack_(const cj_val *i, std::index_sequence<I...>) {
        (void)i;
        return {{tree<T>::pack(i + I * tree<T>::n)...}};
    }
};
template <class... A> inline constexpr int count = (0 + ... + tree<std::decay_t<A>>::n);
/* At least one slot, for C arrays of n values. */
template <int N> using slots = std::array<cj_val, static_cast<size_t>(N > 0 ? N : 1)>;

/* The signature of a lambda or function. */
template <class F> struct fn_traits : fn_traits<decltype(&F::operator())> {};
template <class C, class R, class... A> struct fn_traits<R (C::*)(A...) const> {
    using ret = std::decay_t<R>;
    using args = std::tuple<std::decay_t<A>...>;
};
template <class C, class R, class... A> struct fn_traits<R (C::*)(A...)> : fn_traits<R (C::*)(A...) const> {};
template <class R, class... A> struct fn_traits<R (*)(A...)> {
    using ret = std::decay_t<R>;
    using args = std::tuple<std::decay_t<A>...>;
};
template <class R, class... A> struct fn_traits<R(A...)> : fn_traits<R (*)(A...)> {};

/* What a function object owns: its cj_func, what it wraps, the lambda. */
struct func_node {
    cj_func *f = nullptr;
    cj_ctx *ctx = nullptr;
    std::weak_ptr<ctx_state> alive;
    std::vector<std::shared_ptr<func_node>> keep;
    std::shared_ptr<void> closure;
    func_node() = default;
    func_node(const func_node &) = delete;
    func_node &operator=(const func_node &) = delete;
    ~func_node() {
        if (f && !alive.expired()) cj_func_free(f);
    }
};
using node_ptr = std::shared_ptr<func_node>;

/* Calls the lambda on C values: unpacks the inputs, flattens the result;
 * an exception is kept for the C++ caller of the C call. */
template <class F, class R, class Args> struct tramp;
template <class F, class R, class... A> struct tramp<F, R, std::tuple<A...>> {
    static void run(cj_ctx *, const cj_val *in, cj_val *out, void *user) {
        F &fn = *static_cast<F *>(user);
        depth_guard g;
#ifndef CJAX_NO_EXCEPTIONS
        try {
#endif
            std::tuple<A...> args = tree<std::tuple<A...>>::pack(in);
            R r = std::apply(fn, args);
            tree<R>::flat(r, out);
#ifndef CJAX_NO_EXCEPTIONS
        } catch (...) {
            if (!pending()) pending() = std::current_exception();
        }
#endif
    }
};
/* A node for a cj_func made here (NULL: the error is thrown). */
inline node_ptr adopt(cj_ctx *ctx, cj_func *f, std::vector<node_ptr> keep = {}, std::shared_ptr<void> closure = {}) {
    after(ctx, f == nullptr);
    auto n = std::make_shared<func_node>();
    n->f = f;
    n->ctx = ctx;
    n->alive = alive_of(ctx);
    n->keep = std::move(keep);
    n->closure = std::move(closure);
    return n;
}
} // namespace detail

template <class Sig> class function;

namespace detail {
template <class T> struct is_function : std::false_type {};
template <class S> struct is_function<function<S>> : std::true_type {};
template <class R, class Args> struct sig_of;
template <class R, class... A> struct sig_of<R, std::tuple<A...>> {
    using type = R(A...);
};
} // namespace detail

/* A function object: callable with its argument trees, returning its
 * result tree. Move-only; transformations share what it owns. */
template <class R, class... A> class function<R(A...)> {
    detail::node_ptr node_;

  public:
    using result_type = R;
    using args_type = std::tuple<A...>;
    using signature = R(A...);
    static constexpr int n_in = detail::count<A...>;
    static constexpr int n_out = detail::tree<R>::n;

    function() = default;
    explicit function(detail::node_ptr n) : node_(std::move(n)) {}
    function(function &&) noexcept = default;
    function &operator=(function &&) noexcept = default;
    function(const function &) = delete;
    function &operator=(const function &) = delete;

    cj_func *get() const { return node_ ? node_->f : nullptr; }
    const detail::node_ptr &node() const { return node_; }
    explicit operator bool() const { return node_ && node_->f; }
    cj_ctx *ctx() const { return node_ ? node_->ctx : nullptr; }

    R operator()(const A &...a) const {
        detail::slots<n_in> in{};
        detail::slots<n_out> out{};
        detail::tree<std::tuple<A...>>::flat(std::tuple<A...>(a...), in.data());
        cj_status st = cj_call(get(), in.data(), out.data());
        detail::after(ctx(), st != CJ_OK);
        return detail::tree<R>::pack(out.data());
    }
    /* jit introspection, for these argument types. */
    cj_jit_stats stats() const {
        cj_jit_stats s{};
        cj_jit_stats_get(get(), &s);
        return s;
    }
    std::string last_miss() const { return cj_jit_last_miss(get()); }
    std::string last_donation() const { return cj_jit_last_donation(get()); }
    void clear_cache() const { cj_jit_clear(get()); }
    void set_cache_size(int size) const {
        detail::check(node_ ? node_->ctx : nullptr, cj_jit_set_cache_size(get(), size));
    }
    cj_memory_analysis memory_analysis(const A &...a) const {
        return query<cj_memory_analysis>(cj_jit_memory_analysis, a...);
    }
    cj_cost_analysis cost_analysis(const A &...a) const { return query<cj_cost_analysis>(cj_jit_cost_analysis, a...); }
    cj_program_info program_info(const A &...a) const { return query<cj_program_info>(cj_jit_program_info, a...); }
    /* cj_jit_dump: "simplify,fuse,plan,c" (nullptr: all). */
    std::string dump(const A &...a, const char *what = nullptr) const {
        detail::slots<n_in> in{};
        detail::tree<std::tuple<A...>>::flat(std::tuple<A...>(a...), in.data());
        char *s = cj_jit_dump(get(), in.data(), what);
        detail::after(ctx(), s == nullptr);
        std::string r = s ? s : "";
        cj_string_free(ctx(), s);
        return r;
    }
    void print_ir(const A &...a) const { print_ir_to(stdout, a...); }
    void print_ir_to(FILE *out, const A &...a) const {
        detail::slots<n_in> in{};
        detail::tree<std::tuple<A...>>::flat(std::tuple<A...>(a...), in.data());
        detail::check(ctx(), cj_print_ir(get(), n_in, in.data(), out));
    }
    /* jax.make_jaxpr for these argument types. */
    std::string make_jaxpr(const A &...a) const {
        detail::slots<n_in> in{};
        detail::tree<std::tuple<A...>>::flat(std::tuple<A...>(a...), in.data());
        std::array<cj_spec, static_cast<size_t>(n_in > 0 ? n_in : 1)> specs{};
        for (int i = 0; i < n_in; i++) specs[static_cast<size_t>(i)] = cj_spec_of(in[static_cast<size_t>(i)]);
        char *s = cj_make_jaxpr(get(), n_in, specs.data());
        detail::after(ctx(), s == nullptr);
        std::string r = s ? s : "";
        cj_string_free(ctx(), s);
        return r;
    }
    void memory_svg(const std::string &path, const A &...a) const { picture(cj_jit_memory_svg, path, a...); }
    void program_dot(const std::string &path, const A &...a) const { picture(cj_jit_program_dot, path, a...); }
    std::string name() const { return get() ? cj_func_name(get()) : ""; }
    /* Writes the outputs into the caller's buffers out[0..n_out) (cj_call_into;
     * a jitted function). */
    void call_into(const cj_out_buffer *out, const A &...a) const {
        detail::slots<n_in> in{};
        detail::tree<std::tuple<A...>>::flat(std::tuple<A...>(a...), in.data());
        detail::check(ctx(), cj_call_into(get(), in.data(), out));
    }
    /* Exports it for these input specs as dependency-free C, name.c and
     * name.h (cj_export_c; docs/EXPORT.md). */
    cj_export_info export_c(const std::string &name, const std::vector<cj_spec> &in,
                            const cj_export_opts *opts = nullptr) const {
        cj_export_info info{};
        detail::check(ctx(), cj_export_c(get(), static_cast<int>(in.size()), in.empty() ? nullptr : in.data(),
                                         name.c_str(), opts, &info));
        return info;
    }

  private:
    template <class Out, class Q> Out query(Q q, const A &...a) const {
        detail::slots<n_in> in{};
        detail::tree<std::tuple<A...>>::flat(std::tuple<A...>(a...), in.data());
        Out o{};
        detail::check(ctx(), q(get(), in.data(), &o));
        return o;
    }
    template <class Q> void picture(Q q, const std::string &path, const A &...a) const {
        detail::slots<n_in> in{};
        detail::tree<std::tuple<A...>>::flat(std::tuple<A...>(a...), in.data());
        detail::check(ctx(), q(get(), in.data(), path.c_str()));
    }
};

/* A function object from a lambda (or function pointer) over arrays. The
 * lambda is moved into the object; ctx: the current context if omitted. */
template <class F> auto make_function(F &&f, const char *name = "lambda", cj_ctx *ctx = nullptr) {
    using Fn = std::decay_t<F>;
    using tr = detail::fn_traits<Fn>;
    using R = typename tr::ret;
    using Args = typename tr::args;
    using Sig = typename detail::sig_of<R, Args>::type;
    cj_ctx *c = detail::current(ctx);
    auto closure = std::make_shared<Fn>(std::forward<F>(f));
    constexpr int n_in = detail::tree<Args>::n, n_out = detail::tree<R>::n;
    cj_func *cf = cj_func_new(c, name, &detail::tramp<Fn, R, Args>::run, n_in, n_out, closure.get());
    detail::node_ptr n = detail::adopt(c, cf, {}, closure);
    return function<Sig>(std::move(n));
}

namespace detail {
/* A function (shared) or a lambda (made into one). */
template <class F> auto as_function(F &&f) {
    using Fn = std::decay_t<F>;
    if constexpr (is_function<Fn>::value)
        return Fn(f.node());
    else
        return make_function(std::forward<F>(f));
}
/* Wraps a transformation's result in a node that keeps its source. */
template <class Sig, class Src> function<Sig> derived(cj_func *made, const Src &src) {
    return function<Sig>(adopt(src.node()->ctx, made, {src.node()}));
}
} // namespace detail

/* ---- transformations --------------------------------------------------- */
namespace detail {
template <class Fn> using sig_t = typename Fn::signature;
constexpr int norm_arg(int i, int n) { return i < 0 ? i + n : i; }
/* A function object for the duration of one construct: its body lambda
 * stays the caller's (the construct traces it before returning). */
template <class F> auto temp_function(const F &f, cj_ctx *ctx, const char *name) {
    using Fn = std::decay_t<F>;
    if constexpr (is_function<Fn>::value) {
        (void)ctx, (void)name;
        return Fn(f.node());
    } else {
        using tr = fn_traits<Fn>;
        using R = typename tr::ret;
        using Args = typename tr::args;
        cj_ctx *c = current(ctx);
        cj_func *cf = cj_func_new(c, name, &tramp<Fn, R, Args>::run, tree<Args>::n, tree<R>::n,
                                  const_cast<Fn *>(&f));
        return function<typename sig_of<R, Args>::type>(adopt(c, cf));
    }
}
template <class Fn> using ret_t = typename Fn::result_type;
template <class R> struct second_of;
template <class A, class B> struct second_of<std::pair<A, B>> {
    using first = A;
    using type = B;
};
template <class A, class B> struct second_of<std::tuple<A, B>> {
    using first = A;
    using type = B;
};
template <class T> void flatten(const T &t, cj_val *o) { tree<T>::flat(t, o); }
} // namespace detail

/* jax.jit. static_argnums and donate_argnums count flat inputs (arrays in
 * order, tuples opened). */
struct jit_options {
    std::vector<int> static_argnums, donate_argnums;
    cj_backend backend = CJ_BACKEND_DEFAULT;
};
template <class F> auto jit(F &&f, const jit_options &o = {}) {
    auto src = detail::as_function(std::forward<F>(f));
    cj_jit_opts co{static_cast<int>(o.static_argnums.size()), o.static_argnums.data(),
                   static_cast<int>(o.donate_argnums.size()), o.donate_argnums.data(), o.backend};
    return detail::derived<detail::sig_t<decltype(src)>>(cj_jit(src.get(), &co), src);
}

/* jax.vmap: in_axes per flat input and out_axes per flat output ({}: all
 * 0; cjax::not_mapped is JAX's None). */
struct vmap_options {
    std::vector<int64_t> in_axes, out_axes;
    int64_t axis_size = -1; /* >= 0: the batch size when no input is mapped */
    int64_t chunk_size = 0;
    std::string axis_name; /* jax.vmap's axis_name ("": unnamed): cj_vmap_named */
};
template <class F> auto vmap(F &&f, const vmap_options &o) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    if ((!o.in_axes.empty() && o.in_axes.size() != static_cast<size_t>(Fn::n_in)) ||
        (!o.out_axes.empty() && o.out_axes.size() != static_cast<size_t>(Fn::n_out))) {
        std::string m = "cjax::vmap(" + src.name() + "): in_axes has " + std::to_string(o.in_axes.size()) +
                        " entries and out_axes " + std::to_string(o.out_axes.size()) + ", for " +
                        std::to_string(Fn::n_in) + " inputs and " + std::to_string(Fn::n_out) + " outputs";
#ifndef CJAX_NO_EXCEPTIONS
        detail::throw_arg(m);
#else
        return Fn();
#endif
    }
    cj_vmap_opts vo{o.in_axes.empty() ? nullptr : o.in_axes.data(), o.out_axes.empty() ? nullptr : o.out_axes.data(),
                    o.axis_size, o.axis_size >= 0, o.chunk_size};
    return detail::derived<detail::sig_t<Fn>>(
        cj_vmap_named(src.get(), &vo, o.axis_name.empty() ? nullptr : o.axis_name.c_str()), src);
}
template <class F> auto vmap(F &&f, std::vector<int64_t> in_axes = {}, std::vector<int64_t> out_axes = {}) {
    vmap_options o;
    o.in_axes = std::move(in_axes), o.out_axes = std::move(out_axes);
    return vmap(std::forward<F>(f), o);
}

/* Collectives over named axes (cjax.h, docs/COLLECTIVES.md): inside a
 * function vmapped with vmap_options::axis_name. */
inline array psum(const array &x, const std::string &axis_name) { return detail::wrap(cj_psum(x.v, axis_name.c_str())); }
inline array pmean(const array &x, const std::string &axis_name) {
    return detail::wrap(cj_pmean(x.v, axis_name.c_str()));
}
inline array pmax(const array &x, const std::string &axis_name) { return detail::wrap(cj_pmax(x.v, axis_name.c_str())); }
inline array pmin(const array &x, const std::string &axis_name) { return detail::wrap(cj_pmin(x.v, axis_name.c_str())); }
inline array all_gather(const array &x, const std::string &axis_name, int64_t axis = 0, bool tiled = false) {
    return detail::wrap(cj_all_gather(x.v, axis_name.c_str(), axis, tiled));
}
inline array psum_scatter(const array &x, const std::string &axis_name, int64_t scatter_dimension = 0,
                          bool tiled = false) {
    return detail::wrap(cj_psum_scatter(x.v, axis_name.c_str(), scatter_dimension, tiled));
}
/* perm: (source, destination) pairs, as jax.lax.ppermute's */
inline array ppermute(const array &x, const std::string &axis_name,
                      const std::vector<std::pair<int64_t, int64_t>> &perm) {
    std::vector<int64_t> flat;
    for (const auto &pr : perm) flat.push_back(pr.first), flat.push_back(pr.second);
    return detail::wrap(cj_ppermute(x.v, axis_name.c_str(), static_cast<int64_t>(perm.size()), flat.data()));
}
inline array all_to_all(const array &x, const std::string &axis_name, int64_t split_axis, int64_t concat_axis,
                        bool tiled = false) {
    return detail::wrap(cj_all_to_all(x.v, axis_name.c_str(), split_axis, concat_axis, tiled));
}
inline array axis_index(const std::string &axis_name, cj_ctx *ctx = nullptr) {
    return detail::wrap(cj_axis_index(detail::current(ctx), axis_name.c_str()));
}

/* argnums as a type: cjax::argnums<0, 1> (negative from the end). One
 * argnum gives that argument's gradient, several a tuple of them. */
template <int... I> struct argnums_t {};
template <int... I> inline constexpr argnums_t<I...> argnums{};
/* f returns (value, aux): grad gives (grad, aux), value_and_grad ((value,
 * aux), grad), as JAX's has_aux=True. */
struct has_aux_t {};
inline constexpr has_aux_t has_aux{};

namespace detail {
template <class Fn, int... I> struct grad_types;
template <class R, class... A, int... I> struct grad_types<function<R(A...)>, I...> {
    static constexpr int n = static_cast<int>(sizeof...(A));
    template <int K> using arg = std::tuple_element_t<static_cast<size_t>(norm_arg(K, n)), std::tuple<A...>>;
    using G = std::conditional_t<sizeof...(I) == 1, std::tuple_element_t<0, std::tuple<arg<I>...>>,
                                 std::tuple<arg<I>...>>;
    static std::vector<int> flat_argnums() {
        std::vector<int> v;
        constexpr int offs[] = {tree<std::tuple<A...>>::template off<static_cast<size_t>(norm_arg(I, n))>()...};
        constexpr int cnt[] = {tree<arg<I>>::n...};
        for (size_t k = 0; k < sizeof...(I); k++)
            for (int j = 0; j < cnt[k]; j++) v.push_back(offs[k] + j);
        return v;
    }
    using args = std::tuple<A...>;
};
template <class Sig> struct sig_parts;
template <class R, class... A> struct sig_parts<R(A...)> {
    template <class NewR> using with = NewR(A...);
};
template <class Fn, class NewR> using sig_with = typename sig_parts<sig_t<Fn>>::template with<NewR>;
template <class Fn, int... I>
auto grad_impl(const Fn &src, bool value, bool aux, cj_func *(*make)(cj_func *, const cj_grad_opts *)) {
    using GT = grad_types<Fn, I...>;
    std::vector<int> an = GT::flat_argnums();
    cj_grad_opts go{static_cast<int>(an.size()), an.data(), aux};
    (void)value;
    return make(src.get(), &go);
}
} // namespace detail

template <class F, int... I> auto grad(F &&f, argnums_t<I...>) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    using G = typename detail::grad_types<Fn, I...>::G;
    return detail::derived<detail::sig_with<Fn, G>>(detail::grad_impl<Fn, I...>(src, false, false, cj_grad), src);
}
template <class F> auto grad(F &&f) { return grad(std::forward<F>(f), argnums<0>); }
template <class F, int... I> auto grad(F &&f, argnums_t<I...>, has_aux_t) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    using G = typename detail::grad_types<Fn, I...>::G;
    using Aux = typename detail::second_of<detail::ret_t<Fn>>::type;
    return detail::derived<detail::sig_with<Fn, std::pair<G, Aux>>>(
        detail::grad_impl<Fn, I...>(src, false, true, cj_grad), src);
}
template <class F> auto grad(F &&f, has_aux_t a) { return grad(std::forward<F>(f), argnums<0>, a); }
template <class F, int... I> auto value_and_grad(F &&f, argnums_t<I...>) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    using G = typename detail::grad_types<Fn, I...>::G;
    return detail::derived<detail::sig_with<Fn, std::pair<array, G>>>(
        detail::grad_impl<Fn, I...>(src, true, false, cj_value_and_grad), src);
}
template <class F> auto value_and_grad(F &&f) { return value_and_grad(std::forward<F>(f), argnums<0>); }
template <class F, int... I> auto value_and_grad(F &&f, argnums_t<I...>, has_aux_t) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    using G = typename detail::grad_types<Fn, I...>::G;
    using Aux = typename detail::second_of<detail::ret_t<Fn>>::type;
    return detail::derived<detail::sig_with<Fn, std::pair<std::pair<array, Aux>, G>>>(
        detail::grad_impl<Fn, I...>(src, true, true, cj_value_and_grad), src);
}
template <class F> auto value_and_grad(F &&f, has_aux_t a) { return value_and_grad(std::forward<F>(f), argnums<0>, a); }

namespace detail {
/* Jacobians: one per (flat output, flat argnum input), output-major; a
 * single one is an array, several a std::array of them. */
template <int N> using jac_out = std::conditional_t<N == 1, array, std::array<array, static_cast<size_t>(N)>>;
template <class Fn, int... I> constexpr int flat_count() {
    return (0 + ... + tree<typename grad_types<Fn, I...>::template arg<I>>::n);
}
template <class Fn, int... I> auto jac_impl(const Fn &src, cj_func *(*make)(cj_func *, const cj_grad_opts *)) {
    using Out = jac_out<Fn::n_out * flat_count<Fn, I...>()>;
    std::vector<int> an = grad_types<Fn, I...>::flat_argnums();
    cj_grad_opts go{static_cast<int>(an.size()), an.data(), 0};
    return derived<sig_with<Fn, Out>>(make(src.get(), &go), src);
}
} // namespace detail
template <class F, int... I> auto jacfwd(F &&f, argnums_t<I...>) {
    return detail::jac_impl<decltype(detail::as_function(std::forward<F>(f))), I...>(
        detail::as_function(std::forward<F>(f)), cj_jacfwd);
}
template <class F> auto jacfwd(F &&f) { return jacfwd(std::forward<F>(f), argnums<0>); }
template <class F, int... I> auto jacrev(F &&f, argnums_t<I...>) {
    return detail::jac_impl<decltype(detail::as_function(std::forward<F>(f))), I...>(
        detail::as_function(std::forward<F>(f)), cj_jacrev);
}
template <class F> auto jacrev(F &&f) { return jacrev(std::forward<F>(f), argnums<0>); }
/* jax.hessian of a scalar f: with one array argument, one array. */
template <class F, int... I> auto hessian(F &&f, argnums_t<I...>) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    constexpr int k = detail::flat_count<Fn, I...>();
    using Out = detail::jac_out<k * k>;
    std::vector<int> an = detail::grad_types<Fn, I...>::flat_argnums();
    cj_grad_opts go{static_cast<int>(an.size()), an.data(), 0};
    return detail::derived<detail::sig_with<Fn, Out>>(cj_hessian(src.get(), &go), src);
}
template <class F> auto hessian(F &&f) { return hessian(std::forward<F>(f), argnums<0>); }

/* jax.jvp(f, primals, tangents): primals and tangents are f's arguments
 * (an array, or a tuple of them); returns (f(primals), J tangents). */
template <class F, class P> auto jvp(F &&f, const P &primals, const P &tangents) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    using R = detail::ret_t<Fn>;
    static_assert(detail::tree<P>::n == Fn::n_in, "cjax::jvp: primals must be f's arguments");
    detail::slots<Fn::n_in> p{}, t{};
    detail::slots<Fn::n_out> po{}, to{};
    detail::flatten(primals, p.data()), detail::flatten(tangents, t.data());
    detail::check(src.ctx(), cj_jvp(src.get(), p.data(), t.data(), po.data(), to.data()));
    return std::pair<R, R>(detail::tree<R>::pack(po.data()), detail::tree<R>::pack(to.data()));
}
/* jax.vjp(f, *primals): (f(primals), pullback); the pullback takes the
 * output's cotangent and returns a tuple of one cotangent per argument.
 * It holds residuals of the current scope: call it before that ends. */
template <class F, class... P> auto vjp(F &&f, const P &...primals) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    using R = detail::ret_t<Fn>;
    using Args = typename Fn::args_type;
    detail::slots<Fn::n_in> p{};
    detail::slots<Fn::n_out> po{};
    detail::flatten(Args(primals...), p.data());
    cj_func *pb = cj_vjp(src.get(), p.data(), po.data());
    auto pull = detail::derived<Args(R)>(pb, src);
    return std::pair<R, function<Args(R)>>(detail::tree<R>::pack(po.data()), std::move(pull));
}
/* jax.linearize(f, *primals): (f(primals), the linear map of tangents). */
template <class F, class... P> auto linearize(F &&f, const P &...primals) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    using R = detail::ret_t<Fn>;
    detail::slots<Fn::n_in> p{};
    detail::slots<Fn::n_out> po{};
    detail::flatten(typename Fn::args_type(primals...), p.data());
    cj_func *lin = cj_linearize(src.get(), p.data(), po.data());
    auto l = detail::derived<detail::sig_t<Fn>>(lin, src);
    return std::pair<R, Fn>(detail::tree<R>::pack(po.data()), std::move(l));
}

/* jax.checkpoint with a policy (names for the named ones). */
template <class F>
auto checkpoint(F &&f, cj_remat_policy policy = CJ_SAVE_NOTHING, const std::vector<std::string> &names = {}) {
    auto src = detail::as_function(std::forward<F>(f));
    std::vector<const char *> nm;
    for (const std::string &s : names) nm.push_back(s.c_str());
    cj_checkpoint_opts co{policy, static_cast<int>(nm.size()), nm.empty() ? nullptr : nm.data()};
    return detail::derived<detail::sig_t<decltype(src)>>(cj_checkpoint(src.get(), &co), src);
}
/* jax.ad_checkpoint.print_saved_residuals for grad by argument 0. */
template <class F, class... P> std::string saved_residuals(F &&f, const P &...args) {
    auto src = detail::as_function(std::forward<F>(f));
    using Fn = decltype(src);
    detail::slots<Fn::n_in> p{};
    detail::flatten(typename Fn::args_type(args...), p.data());
    std::array<cj_spec, static_cast<size_t>(Fn::n_in > 0 ? Fn::n_in : 1)> specs{};
    for (size_t i = 0; i < static_cast<size_t>(Fn::n_in); i++) specs[i] = cj_spec_of(p[i]);
    char *s = cj_saved_residuals(src.get(), nullptr, Fn::n_in, specs.data(), nullptr);
    detail::after(src.ctx(), s == nullptr);
    std::string r = s ? s : "";
    cj_string_free(src.ctx(), s);
    return r;
}
/* jax.custom_jvp: rule(primals..., tangents...) -> (out, tangent out). */
template <class F, class Rule> auto custom_jvp(F &&f, Rule &&rule) {
    auto src = detail::as_function(std::forward<F>(f));
    auto r = detail::as_function(std::forward<Rule>(rule));
    cj_func *made = cj_custom_jvp(src.get(), r.get());
    using Fn = decltype(src);
    return function<detail::sig_t<Fn>>(detail::adopt(src.ctx(), made, {src.node(), r.node()}));
}
/* jax.custom_vjp: fwd(args...) -> (out, residuals...) flat; bwd(residuals
 * ..., cotangent) -> one cotangent per argument. */
template <class F, class Fwd, class Bwd> auto custom_vjp(F &&f, Fwd &&fwd, Bwd &&bwd) {
    auto src = detail::as_function(std::forward<F>(f));
    auto a = detail::as_function(std::forward<Fwd>(fwd));
    auto b = detail::as_function(std::forward<Bwd>(bwd));
    cj_func *made = cj_custom_vjp(src.get(), a.get(), b.get());
    using Fn = decltype(src);
    return function<detail::sig_t<Fn>>(detail::adopt(src.ctx(), made, {src.node(), a.node(), b.node()}));
}

/* ---- control flow (lambdas as bodies; closed-over arrays become extra
 * operands, as in JAX) ---------------------------------------------------- */
/* lax.cond(pred, true_fun, false_fun, *operands). */
template <class T, class F, class... Ops> auto cond(const array &pred, const T &tf, const F &ff, const Ops &...ops) {
    auto t = detail::temp_function(tf, pred.v.ctx, "cond_true");
    auto e = detail::temp_function(ff, pred.v.ctx, "cond_false");
    using R = detail::ret_t<decltype(t)>;
    detail::slots<detail::count<Ops...>> in{};
    detail::flatten(std::tuple<Ops...>(ops...), in.data());
    detail::slots<detail::tree<R>::n> out{};
    detail::check(pred.v.ctx, cj_cond(pred.v, t.get(), e.get(), detail::count<Ops...>, in.data(), out.data()));
    return detail::tree<R>::pack(out.data());
}
/* lax.switch(index, branches, *operands): branches a tuple of lambdas. */
template <class... Fs, class... Ops>
auto switch_(const array &index, const std::tuple<Fs...> &branches, const Ops &...ops) {
    auto fns = std::apply(
        [&](const Fs &...b) { return std::make_tuple(detail::temp_function(b, index.v.ctx, "switch_branch")...); },
        branches);
    using R = detail::ret_t<std::tuple_element_t<0, decltype(fns)>>;
    std::array<cj_func *, sizeof...(Fs)> ptrs = std::apply([](const auto &...f) {
        return std::array<cj_func *, sizeof...(Fs)>{f.get()...};
    }, fns);
    detail::slots<detail::count<Ops...>> in{};
    detail::flatten(std::tuple<Ops...>(ops...), in.data());
    detail::slots<detail::tree<R>::n> out{};
    detail::check(index.v.ctx, cj_switch(index.v, static_cast<int>(sizeof...(Fs)), ptrs.data(),
                                         detail::count<Ops...>, in.data(), out.data()));
    return detail::tree<R>::pack(out.data());
}
namespace detail {
template <class T> cj_ctx *first_ctx(const T &t) {
    slots<tree<T>::n> v{};
    tree<T>::flat(t, v.data());
    return tree<T>::n > 0 ? v[0].ctx : nullptr;
}
} // namespace detail
/* lax.while_loop(cond_fun, body_fun, init): the lambdas take the carry as
 * init's tree (or its arrays one by one). */
template <class C, class B, class T> T while_loop(const C &cond_fun, const B &body_fun, const T &init) {
    cj_ctx *ctx = detail::first_ctx(init);
    auto c = detail::temp_function(cond_fun, ctx, "while_cond");
    auto b = detail::temp_function(body_fun, ctx, "while_body");
    constexpr int n = detail::tree<T>::n;
    detail::slots<n> in{}, out{};
    detail::flatten(init, in.data());
    detail::check(ctx, cj_while_loop(c.get(), b.get(), n, in.data(), out.data()));
    return detail::tree<T>::pack(out.data());
}
/* lax.fori_loop(lower, upper, body_fun(i, carry), init). */
template <class B, class T> T fori_loop(int64_t lower, int64_t upper, const B &body_fun, const T &init) {
    cj_ctx *ctx = detail::first_ctx(init);
    auto b = detail::temp_function(body_fun, ctx, "fori_body");
    constexpr int n = detail::tree<T>::n;
    detail::slots<n> in{}, out{};
    detail::flatten(init, in.data());
    detail::check(ctx, cj_fori_loop(lower, upper, b.get(), n, in.data(), out.data()));
    return detail::tree<T>::pack(out.data());
}
/* The length of a scan without xs. */
struct scan_length {
    int64_t n;
    explicit scan_length(int64_t len) : n(len) {}
};
namespace detail {
template <class Fn, class T, class X>
auto scan_impl(const Fn &body, const T &init, const X *xs, int64_t length, bool reverse, cj_ctx *ctx) {
    using R = ret_t<Fn>;
    using Y = typename second_of<R>::type;
    constexpr int nc = tree<T>::n, nx = X::n_flat, ny = tree<Y>::n;
    slots<nc> in{}, cout{};
    slots<nx> xv{};
    slots<ny> ys{};
    flatten(init, in.data());
    if constexpr (nx > 0) xs->flat(xv.data());
    cj_scan_opts so{length, length >= 0, reverse};
    check(ctx, cj_scan(body.get(), nc, in.data(), nx, xv.data(), &so, cout.data(), ys.data()));
    return std::pair<T, Y>(tree<T>::pack(cout.data()), tree<Y>::pack(ys.data()));
}
template <class X> struct xs_holder {
    static constexpr int n_flat = tree<X>::n;
    const X &x;
    void flat(cj_val *o) const { tree<X>::flat(x, o); }
};
struct no_xs {
    static constexpr int n_flat = 0;
    void flat(cj_val *) const {}
};
} // namespace detail
/* lax.scan(f, init, xs): f(carry, x) -> (carry, y); returns (carry, ys).
 * y may be std::tuple<> (none). */
template <class F, class T, class X> auto scan(const F &f, const T &init, const X &xs, bool reverse = false) {
    cj_ctx *ctx = detail::first_ctx(init);
    if (!ctx) ctx = detail::first_ctx(xs);
    auto body = detail::temp_function(f, ctx, "scan_body");
    detail::xs_holder<X> h{xs};
    return detail::scan_impl(body, init, &h, -1, reverse, ctx);
}
/* lax.scan(f, init, length=n): f(carry) -> (carry, y). */
template <class F, class T> auto scan(const F &f, const T &init, scan_length len, bool reverse = false) {
    cj_ctx *ctx = detail::first_ctx(init);
    auto body = detail::temp_function(f, ctx, "scan_body");
    detail::no_xs h;
    return detail::scan_impl(body, init, &h, len.n, reverse, ctx);
}
/* lax.associative_scan(fn, elems, reverse, axis): fn(a, b) -> a's tree. */
template <class F, class T> T associative_scan(const F &fn, const T &elems, int64_t axis = 0, bool reverse = false) {
    cj_ctx *ctx = detail::first_ctx(elems);
    auto f = detail::temp_function(fn, ctx, "associative_scan_fn");
    constexpr int n = detail::tree<T>::n;
    detail::slots<n> in{}, out{};
    detail::flatten(elems, in.data());
    detail::check(ctx, cj_associative_scan(f.get(), n, in.data(), axis, reverse, out.data()));
    return detail::tree<T>::pack(out.data());
}

/* Runs f() in a scope of its own and keeps what it returns (an array or a
 * tree of them): the loop idiom, x = cjax::scoped([&] { return step(x); }). */
template <class F> auto scoped(const F &f, cj_ctx *ctx = nullptr) {
    scope s(ctx);
    auto r = f();
    using R = decltype(r);
    detail::slots<detail::tree<R>::n> v{};
    detail::flatten(r, v.data());
    for (int i = 0; i < detail::tree<R>::n; i++) s.keep(array(v[static_cast<size_t>(i)]));
    s.end();
    return r;
}
/* JAX's x = f(x) in a loop: f(x) runs in a scope of its own (its
 * intermediates go), then the old x is freed and x becomes the result, so
 * memory stays flat however many times it runs. */
template <class F> void update(array &x, const F &f, cj_ctx *ctx = nullptr) {
    array next = scoped([&] { return array(f(x)); }, ctx ? ctx : x.v.ctx);
    x.free();
    x = next;
}

/* cj_import_stablehlo / cj_import_stablehlo_file (docs/IMPORT.md): the
 * module's entry function as function<Sig>, whose argument and result
 * counts are checked against the module's; e.g.
 * auto f = cjax::import_stablehlo_file<array(array, array)>("mlp.mlir"). */
template <class Sig>
function<Sig> import_stablehlo(const std::string &text, cj_ctx *ctx = nullptr, const char *entry = nullptr) {
    cj_ctx *c = detail::current(ctx);
    cj_import_opts o{};
    o.entry = entry;
    o.check_arity = 1;
    o.n_in = function<Sig>::n_in;
    o.n_out = function<Sig>::n_out;
    return function<Sig>(detail::adopt(c, cj_import_stablehlo(c, text.data(), text.size(), &o)));
}
template <class Sig>
function<Sig> import_stablehlo_file(const std::string &path, cj_ctx *ctx = nullptr, const char *entry = nullptr) {
    cj_ctx *c = detail::current(ctx);
    cj_import_opts o{};
    o.entry = entry;
    o.check_arity = 1;
    o.n_in = function<Sig>::n_in;
    o.n_out = function<Sig>::n_out;
    return function<Sig>(detail::adopt(c, cj_import_stablehlo_file(c, path.c_str(), &o)));
}

} // namespace cjax
#endif
