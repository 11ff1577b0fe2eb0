// vectorize: write a scalar function once, get a ufunc.
//
//   auto add = ufunc::vectorize<float(float, float)>([](auto a, auto b) { return a + b; }, "add");
//   ufunc::array_t<float> x = ..., y = ...;
//   auto z = add(x, y);        // typed path: the float loop is chosen at compile time
//   ufunc::array r = ...;      // dtype known only at run time
//   auto s = add(r, 1.5);      // run-time path: NumPy 2 loop resolution, casting, errors
//   add.types();               // {"ff->f"}
//
// Several signatures are given as ufunc::signatures<float(float, float), double(double, double)>,
// most specific first, as Numba's signature lists. The second template argument is
// the target (target::cpu by default, or the preset's UFUNC_DEFAULT_TARGET).
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ufunc/backends/cpu/loops.hpp>
#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
#include <ufunc/backends/cuda/loops.hpp>
#include <ufunc/backends/cuda/methods.hpp>
#endif
#include <ufunc/core/array.hpp>
#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/detail/half_in_float.hpp>
#include <ufunc/core/detail/run_loop.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/signature.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc {

/// A list of loop signatures for vectorize, most specific first.
template <class... Sigs>
struct signatures {};

namespace detail {

/// What vectorize and gvectorize ask of their Target at compile time: one of the library's
/// targets, built in, and for target::cuda a CUDA translation unit (the functor is compiled
/// for the GPU there). Fails with the reason; true otherwise.
template <class Target>
constexpr bool functor_target_ok() {
  static_assert(std::is_same_v<Target, target::cpu> || std::is_same_v<Target, target::parallel> ||
                    std::is_same_v<Target, target::cuda> || std::is_same_v<Target, target::automatic>,
                "ufunc::vectorize / gvectorize: the target must be target::cpu, target::parallel, target::cuda or "
                "target::automatic");
#if !defined(UFUNC_HAS_TBB)
  static_assert(!std::is_same_v<Target, target::parallel>,
                "ufunc::vectorize / gvectorize: target::parallel needs the TBB backend: configure with the 'tbb' or "
                "'all' preset (UFUNC_ENABLE_TBB=ON)");
#endif
#if !defined(UFUNC_HAS_CUDA)
  static_assert(!std::is_same_v<Target, target::cuda>,
                "ufunc::vectorize / gvectorize: target::cuda needs the CUDA backend: configure with the 'cuda' or "
                "'all' preset (UFUNC_ENABLE_CUDA=ON)");
#elif !defined(__CUDACC__)
  static_assert(!std::is_same_v<Target, target::cuda>,
                "ufunc::vectorize / gvectorize: a translation unit that makes a ufunc or gufunc for target::cuda from "
                "its own functor must be compiled as CUDA (a .cu file, or LANGUAGE CUDA), with a __host__ __device__ "
                "functor; or name a host target (vectorize<Sig, ufunc::target::cpu>), or define "
                "UFUNC_DEFAULT_TARGET=cpu for this file");
#endif
  return true;
}

template <class S>
struct signature_list {
  using type = signatures<S>;
};
template <class... S>
struct signature_list<signatures<S...>> {
  using type = signatures<S...>;
};

// How an argument of the typed path is seen at compile time.
enum class arg_kind { typed_array, weak_scalar, runtime };

template <class A>
struct arg_info {
  static constexpr arg_kind kind =
      std::is_base_of_v<array, A> || std::is_same_v<A, operand> ? arg_kind::runtime : arg_kind::weak_scalar;
  using element = void;
};
template <class T>
struct arg_info<array_t<T>> {
  static constexpr arg_kind kind = arg_kind::typed_array;
  using element = T;
};
template <class T, std::size_t E>
struct arg_info<std::span<T, E>> {
  static constexpr arg_kind kind = arg_kind::typed_array;
  using element = std::remove_const_t<T>;
};
template <class T, class Alloc>
struct arg_info<std::vector<T, Alloc>> {
  static constexpr arg_kind kind = arg_kind::typed_array;
  using element = T;
};
template <class T, std::size_t N>
struct arg_info<std::array<T, N>> {
  static constexpr arg_kind kind = arg_kind::typed_array;
  using element = T;
};

template <class A>
inline constexpr bool is_typed_arg = arg_info<A>::kind == arg_kind::typed_array ||
                                     (arg_info<A>::kind == arg_kind::weak_scalar && is_weak_scalar_type<A>);

template <class T>
constexpr int weak_rank() {
  if constexpr (std::is_same_v<T, bool>)
    return 0;
  else if constexpr (std::is_integral_v<T>)
    return 1;
  else if constexpr (std::is_floating_point_v<T>)
    return 2;
  else
    return 3;
}
template <class T>
constexpr int dtype_rank() {
  constexpr auto k = dtype_of<T>.kind();
  if constexpr (k == dtype_kind::boolean)
    return 0;
  else if constexpr (k == dtype_kind::signed_int || k == dtype_kind::unsigned_int)
    return 1;
  else if constexpr (k == dtype_kind::floating)
    return 2;
  else
    return 3;
}

// Does argument type A fit parameter type P of a signature, statically? Typed
// arrays need the exact element type (no hidden casts on the typed path); weak
// scalars need a kind no higher than P's (NEP 50); the value is checked at run time.
template <class A, class P>
constexpr bool arg_fits() {
  if constexpr (arg_info<A>::kind == arg_kind::typed_array)
    return std::is_same_v<typename arg_info<A>::element, P>;
  else
    return weak_rank<A>() <= dtype_rank<P>();
}

template <class Sig, class... A>
struct sig_accepts : std::false_type {};
// clang-format 14 would join the requires-clause onto the declaration.
// clang-format off
template <class R, class... P, class... A>
  requires(sizeof...(P) == sizeof...(A))
struct sig_accepts<R(P...), A...> : std::bool_constant<(arg_fits<A, P>() && ...)> {};

template <class List, class... A>
struct first_match {
  using type = void;
};
// clang-format on
template <class S, class... Rest, class... A>
struct first_match<signatures<S, Rest...>, A...> {
  using type =
      std::conditional_t<sig_accepts<S, A...>::value, S, typename first_match<signatures<Rest...>, A...>::type>;
};

template <class... A>
struct no_signature_matches {
  static_assert(sizeof...(A) == 0,
                "ufunc::vectorize: no signature of this ufunc matches the argument element types (see A... in this "
                "instantiation). On the typed path array element types must match a signature exactly; pass "
                "ufunc::array operands to have them cast under NumPy's rules instead, or add a signature.");
};

// Typed arguments as run-time operands (views; no copies).
template <class A>
operand as_operand(const A& a) {
  if constexpr (arg_info<A>::kind == arg_kind::typed_array) {
    using T = typename arg_info<A>::element;
    if constexpr (std::is_base_of_v<array, A>)
      return operand(static_cast<const array&>(a));
    else
      return operand(array(const_cast<T*>(std::data(a)), dtype_of<T>, {static_cast<std::int64_t>(std::size(a))}));
  } else {
    return operand(a);
  }
}

template <class T>
struct typed_outputs;
template <class... R>
struct typed_outputs<type_list<R...>> {
  using type = std::conditional_t<sizeof...(R) == 1, array_t<std::tuple_element_t<0, std::tuple<R...>>>,
                                  std::tuple<array_t<R>...>>;
  static type from(detail::result_list& outs) {
    if constexpr (sizeof...(R) == 1) {
      return type(outs[0]);
    } else {
      return [&]<std::size_t... I>(std::index_sequence<I...>) { return type(array_t<R>(outs[I])...); }
      (std::index_sequence_for<R...>{});
    }
  }
};

}  // namespace detail

/// The object vectorize returns: a typed front end over a run-time ufunc::function.
template <class Target, class F, class... Sigs>
class vectorized {
  // A signature with float16 / bfloat16 operands whose functor takes float in their place
  // runs it through detail::half_in_float: computed in float, rounded back once (NumPy's way).
  // (Traits, so that a generic lambda is never instantiated with a 16-bit type, which has no
  // arithmetic: float is tried first.)
  template <class Sig>
  struct takes_float
      : std::bool_constant<backends::cpu::callable_as<F, typename detail::widened_signature<Sig>::type>> {};
  template <class Sig>
  struct takes_signature : std::bool_constant<backends::cpu::callable_as<F, Sig>> {};
  template <class Sig>
  static constexpr bool computes_in_float =
      std::conjunction_v<std::bool_constant<detail::has_half_operand<Sig>>, takes_float<Sig>>;
  template <class Sig>
  using loop_functor = std::conditional_t<computes_in_float<Sig>, detail::half_in_float<F, Sig>, F>;
  static_assert(sizeof...(Sigs) >= 1, "ufunc::vectorize needs at least one signature");
  static_assert(detail::functor_target_ok<Target>());

  using first_traits = signature_traits<std::tuple_element_t<0, std::tuple<Sigs...>>>;
  static_assert(((signature_traits<Sigs>::nin == first_traits::nin) && ...),
                "ufunc::vectorize: every signature must take the same number of arguments");
  static_assert(((signature_traits<Sigs>::nout == first_traits::nout) && ...),
                "ufunc::vectorize: every signature must return the same number of results");
  static_assert((std::disjunction_v<std::bool_constant<computes_in_float<Sigs>>, takes_signature<Sigs>> && ...),
                "ufunc::vectorize: the functor cannot be called as one of the signatures says (arguments by value, "
                "result convertible to the signature's result; for float16 / bfloat16 operands, with float)");

 public:
  static constexpr int nin = first_traits::nin;
  static constexpr int nout = first_traits::nout;

  vectorized(F f, std::string name, std::optional<weak_scalar> identity = {})
      : f_(std::make_shared<const F>(std::move(f))),
        functors_(functor_for<Sigs>()...),
        ufunc_(std::move(name), nin, nout, identity) {
    (register_loop<Sigs>(), ...);
  }

  /// The run-time ufunc: its name, nin, nout, types; add loops to it, call it with `array`s.
  [[nodiscard]] const function& ufunc() const noexcept { return ufunc_; }
  [[nodiscard]] const std::string& name() const noexcept { return ufunc_.name(); }
  [[nodiscard]] std::vector<std::string> types() const { return ufunc_.types(); }
  [[nodiscard]] std::size_t ntypes() const { return ufunc_.ntypes(); }

  // clang-format 14 would join the requires-clauses onto the declarations.
  // clang-format off
  template <class A0>
    requires(nin == 1)
  auto operator()(const A0& a0, const call_options& options = {}) const {
    return dispatch(options, a0);
  }
  template <class A0, class A1>
    requires(nin == 2)
  auto operator()(const A0& a0, const A1& a1, const call_options& options = {}) const {
    return dispatch(options, a0, a1);
  }
  template <class A0, class A1, class A2>
    requires(nin == 3)
  auto operator()(const A0& a0, const A1& a1, const A2& a2, const call_options& options = {}) const {
    return dispatch(options, a0, a1, a2);
  }
  // clang-format on
  /// Any arity, run-time path.
  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {}) const {
    call_options opts = options;
    if (!opts.target) opts.target = Target::id;
    return ufunc_.call(inputs, opts);
  }

  // NumPy's ufunc methods, on the object's target unless the options name another.
  array reduce(const array& a, reduce_options options = {}) const {
    if (!options.target) options.target = Target::id;
    return ufunc_.reduce(a, options);
  }
  array accumulate(const array& a, accumulate_options options = {}) const {
    if (!options.target) options.target = Target::id;
    return ufunc_.accumulate(a, options);
  }
  array reduceat(const array& a, const array& indices, accumulate_options options = {}) const {
    if (!options.target) options.target = Target::id;
    return ufunc_.reduceat(a, indices, options);
  }
  array outer(const operand& a, const operand& b, call_options options = {}) const {
    if (!options.target) options.target = Target::id;
    return ufunc_.outer(a, b, options);
  }
  void at(const array& a, const array& index, const operand& b, call_options options = {}) const {
    if (!options.target) options.target = Target::id;
    ufunc_.at(a, index, b, options);
  }
  void at(const array& a, std::span<const array> indices, const operand& b, call_options options = {}) const {
    if (!options.target) options.target = Target::id;
    ufunc_.at(a, indices, b, options);
  }
  void at(const array& a, std::initializer_list<array> indices, const operand& b, call_options options = {}) const {
    if (!options.target) options.target = Target::id;
    ufunc_.at(a, indices, b, options);
  }
  void at(const array& a, const array& index, call_options options = {}) const {
    if (!options.target) options.target = Target::id;
    ufunc_.at(a, index, options);
  }

 private:
  // The functor signature Sig's loop runs: f_ itself, or f_ computing in float.
  template <class Sig>
  std::shared_ptr<const loop_functor<Sig>> functor_for() const {
    if constexpr (computes_in_float<Sig>)
      return std::make_shared<const loop_functor<Sig>>(loop_functor<Sig>{*f_});
    else
      return f_;
  }
  template <class Sig>
  const std::shared_ptr<const loop_functor<Sig>>& functor_ptr() const {
    constexpr std::size_t index = [] {
      std::size_t i = 0, found = 0;
      ((std::is_same_v<Sig, Sigs> ? (found = i, ++i) : ++i), ...);
      return found;
    }();
    return std::get<index>(functors_);
  }
  template <class Sig>
  const loop_functor<Sig>* functor() const {
    return functor_ptr<Sig>().get();
  }

  template <class Sig>
  void register_loop() {
    using G = loop_functor<Sig>;
    loop_entry e;
    e.types = signature_traits<Sig>::types();
    e.host = backends::cpu::inner_loop<Sig, G>;
    e.host_data = functor<Sig>();
    e.keepalive = functor_ptr<Sig>();
    e.vectorized = backends::cpu::is_vectorizable<G, Sig>;
    e.host_fixed_run = backends::cpu::fixed_run_loop<Sig, G>;  // a fused expression's node (fusion/)
    e.devices = device_slots<Sig>();
    backends::cpu::set_reduce<Sig, G>(e);  // T(T, T): reductions fold with the functor (reorderable if F says so)
    ufunc_.add_loop(std::move(e));
  }

  // The loop's device code: the CUDA launchers where this ufunc targets the GPU.
  template <class Sig>
  device_code_slots device_slots() const {
    device_code_slots slots;
    if constexpr (device_loop<Sig>() != nullptr)
      slots.set({target_id::cuda, device_loop<Sig>(), device_method_loop<Sig>(), functor<Sig>()});
    return slots;
  }

  // The CUDA launcher of the methods where this ufunc targets the GPU.
  template <class Sig>
  static constexpr device_method_fn device_method_loop() {
#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
    if constexpr (std::is_same_v<Target, target::cuda> || std::is_same_v<Target, target::automatic>)
      return backends::cuda::device_method_loop<Sig, loop_functor<Sig>>;
#endif
    return nullptr;
  }

  // The CUDA launcher where this ufunc targets the GPU (and this TU is CUDA).
  template <class Sig>
  static constexpr device_loop_fn device_loop() {
#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
    if constexpr (std::is_same_v<Target, target::cuda> || std::is_same_v<Target, target::automatic>)
      return backends::cuda::device_loop<Sig, loop_functor<Sig>>;
#endif
    return nullptr;
  }

  template <class... A>
  auto dispatch(const call_options& options, const A&... args) const {
    if constexpr ((detail::is_typed_arg<A> && ...)) {
      using Sig = typename detail::first_match<signatures<Sigs...>, A...>::type;
      if constexpr (std::is_void_v<Sig>) {
        detail::no_signature_matches<A...> error;
        (void)error;
        return array{};
      } else {
        return typed_call<Sig>(options, args...);
      }
    } else {
      // The object's compile-time target applies unless the call names another.
      call_options opts = options;
      if (!opts.target) opts.target = Target::id;
      if constexpr (nout == 1)
        return ufunc_(detail::as_operand(args)..., opts);
      else
        return ufunc_.call(std::array<operand, nin>{detail::as_operand(args)...}, opts);
    }
  }

  template <class Sig, class... A>
  auto typed_call(const call_options& options, const A&... args) const {
    using traits = signature_traits<Sig>;
    using out_types = detail::typed_outputs<typename traits::outputs>;
    const std::array<operand, nin> ops{detail::as_operand(args)...};
    const auto types = traits::types();
    dtype input_types[nin];
    for (int i = 0; i < nin; ++i) {
      if (ops[i].is_scalar() && !ops[i].as_scalar().fits(types.input(i)))
        throw overflow_error("ufunc '" + name() + "': Python integer " + ops[i].as_scalar().str() +
                             " out of bounds for " + std::string(types.input(i).name()));
      input_types[i] = types.input(i);
    }
    auto outs = detail::run_loop(
        {ufunc_.name(), types, backends::cpu::inner_loop<Sig, loop_functor<Sig>>, functor<Sig>(), device_slots<Sig>(),
         ops, input_types, options,
         detail::resolve_target(options.target ? options.target : std::optional<target_id>(Target::id))});
    return out_types::from(outs);
  }

  std::shared_ptr<const F> f_;
  std::tuple<std::shared_ptr<const loop_functor<Sigs>>...> functors_;  // one per signature (the keepalive of each loop)
  function ufunc_;
};

/// Makes a ufunc from `f` with the loop(s) `Sig` (a function type, or
/// ufunc::signatures<...>) on `Target`. `identity` is what reductions start from
/// (NumPy's ufunc.identity); mark `f` ufunc::reorderable to let them regroup.
template <class Sig, class Target = target::default_target, class F>
[[nodiscard]] auto vectorize(F f, std::string name = "vectorized", std::optional<weak_scalar> identity = {}) {
  return [&]<class... S>(signatures<S...>) {
    return vectorized<Target, F, S...>(std::move(f), std::move(name), identity);
  }(typename detail::signature_list<Sig>::type{});
}

}  // namespace ufunc
