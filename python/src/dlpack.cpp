#include "dlpack.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <ufunc/core/error.hpp>

#include "attributes.hpp"

namespace ufunc::python {

namespace {

constexpr const char* versioned_name = "dltensor_versioned";
constexpr const char* legacy_name = "dltensor";
constexpr const char* used_versioned_name = "used_dltensor_versioned";
constexpr const char* used_legacy_name = "used_dltensor";

ufunc::dtype dtype_of_dlpack(const dlpack::data_type& t) {
  const auto bad = [&] {
    return dtype_error("ufunc has no dtype for the DLPack type (code " + std::to_string(t.code) + ", " +
                       std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) + " lanes)");
  };
  if (t.lanes != 1) throw bad();
  switch (t.code) {
    case dlpack::bool_:
      if (t.bits == 8) return bool_;
      break;
    case dlpack::int_:
      switch (t.bits) {
        case 8:
          return int8;
        case 16:
          return int16;
        case 32:
          return int32;
        case 64:
          return int64;
        default:
          break;
      }
      break;
    case dlpack::uint:
      switch (t.bits) {
        case 8:
          return uint8;
        case 16:
          return uint16;
        case 32:
          return uint32;
        case 64:
          return uint64;
        default:
          break;
      }
      break;
    case dlpack::float_:
      switch (t.bits) {
        case 16:
          return float16;
        case 32:
          return float32;
        case 64:
          return float64;
        default:
          break;
      }
      break;
    case dlpack::bfloat:
      if (t.bits == 16) return bfloat16;
      break;
    case dlpack::complex:
      if (t.bits == 64) return complex64;
      if (t.bits == 128) return complex128;
      break;
    default:
      break;
  }
  throw bad();
}

dlpack::data_type dlpack_type_of(ufunc::dtype t) {
  const auto bits = static_cast<std::uint8_t>(t.itemsize() * 8);
  switch (t.kind()) {
    case dtype_kind::boolean:
      return {dlpack::bool_, 8, 1};
    case dtype_kind::signed_int:
      return {dlpack::int_, bits, 1};
    case dtype_kind::unsigned_int:
      return {dlpack::uint, bits, 1};
    case dtype_kind::complex:
      return {dlpack::complex, bits, 1};
    case dtype_kind::floating:
      break;
  }
  return {t == bfloat16 ? dlpack::bfloat : dlpack::float_, bits, 1};
}

// The array a DLTensor describes; `owner` frees the producer's tensor when the last view goes.
ufunc::array array_of_tensor(const dlpack::tensor& t, std::shared_ptr<void> owner, bool read_only) {
  const ufunc::dtype type = dtype_of_dlpack(t.dtype);
  ufunc::device where;
  switch (t.device.device_type) {
    case dlpack::cpu:
    case dlpack::cuda_host:
      break;  // pinned host memory is host memory
    case dlpack::cuda:
    case dlpack::cuda_managed:
      where = ufunc::device::cuda(t.device.device_id);
      break;
    default:
      throw value_error("DLPack device type " + std::to_string(t.device.device_type) +
                        " is not supported (ufunc takes host (1), pinned host (3), CUDA (2) and managed (13) memory)");
  }
  if (t.ndim < 0) throw value_error("DLPack tensor with ndim " + std::to_string(t.ndim));
  dim_vector shape(t.shape, t.shape + t.ndim);
  dim_vector strides;
  const auto itemsize = static_cast<std::int64_t>(type.itemsize());
  if (t.strides != nullptr) {
    for (int i = 0; i < t.ndim; ++i) strides.push_back(t.strides[i] * itemsize);
  } else {
    strides.resize(static_cast<std::size_t>(t.ndim));
    std::int64_t step = itemsize;
    for (int i = t.ndim - 1; i >= 0; --i) {
      strides[static_cast<std::size_t>(i)] = step;
      step *= std::max<std::int64_t>(shape[static_cast<std::size_t>(i)], 1);
    }
  }
  auto* data = static_cast<std::byte*>(t.data) + t.byte_offset;
  ufunc::array a(data, type, std::move(shape), std::move(strides), std::move(owner), where);
  return read_only ? a.as_readonly() : a;
}

// What an exported tensor keeps alive, and where its shape and strides live.
struct export_holder {
  nb::object stream_owner;
  ufunc::array array;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

// A consumer may call the deleter without the GIL (PyTorch frees storage from C++): the memory
// is freed first, in its stream's order, then the stream object released under the GIL (or
// left to the process where the interpreter is finishing).
bool interpreter_finishing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

void release(export_holder* holder) {
  holder->array = ufunc::array();
  if (holder->stream_owner.is_valid()) {
    if (Py_IsInitialized() != 0 && !interpreter_finishing()) {
      const nb::gil_scoped_acquire gil;
      holder->stream_owner.reset();
    } else {
      (void)holder->stream_owner.release();
    }
  }
  delete holder;
}

template <class Managed>
void fill_export(Managed* m, const ufunc::array& a, nb::object stream_owner) {
  auto* holder = new export_holder{std::move(stream_owner), a, {}, {}};
  const auto itemsize = static_cast<std::int64_t>(a.itemsize());
  for (std::size_t i = 0; i < a.ndim(); ++i) {
    holder->shape.push_back(a.shape()[i]);
    // Strides count elements in DLPack: an array whose byte strides are not whole elements
    // (a complex128 view with 8-byte steps) cannot be described.
    if (a.strides()[i] % itemsize != 0) {
      release(holder);
      throw value_error("the array's strides are not whole elements; DLPack cannot describe it (copy it first)");
    }
    holder->strides.push_back(a.strides()[i] / itemsize);
  }
  const auto where = dlpack_device_of(a);
  m->dl_tensor = dlpack::tensor{a.data(),
                                where,
                                static_cast<std::int32_t>(a.ndim()),
                                dlpack_type_of(a.type()),
                                holder->shape.data(),
                                holder->strides.data(),
                                0};
  m->manager_ctx = holder;
  m->deleter = [](Managed* self) {
    release(static_cast<export_holder*>(self->manager_ctx));
    delete self;
  };
}

// The capsule of a new tensor sharing `a`: named `name` until a consumer takes the tensor (and
// renames it), freed by the capsule only if none did.
template <class Managed>
nb::object capsule_of(const ufunc::array& a, const char* name, nb::object stream_owner) {
  auto* m = new Managed{};
  try {
    fill_export(m, a, std::move(stream_owner));
  } catch (...) {
    delete m;
    throw;
  }
  if constexpr (std::is_same_v<Managed, dlpack::managed_tensor_versioned>) {
    m->version = {dlpack::major_version, dlpack::minor_version};
    m->flags = a.writeable() ? 0 : dlpack::flag_read_only;
  }
  PyObject* cap = PyCapsule_New(m, name, [](PyObject* self) {
    const char* held = PyCapsule_GetName(self);
    // Consumed capsules are renamed "used_..."; those the consumer did not take still own the tensor.
    if (held != nullptr && std::strncmp(held, "used_", 5) != 0) {
      auto* t = static_cast<Managed*>(PyCapsule_GetPointer(self, held));
      t->deleter(t);
    }
  });
  if (cap == nullptr) {
    m->deleter(m);
    throw nb::python_error();
  }
  return nb::steal(cap);
}

}  // namespace

dlpack::device dlpack_device_of(const ufunc::array& a) {
  const auto where = a.device();
  if (where.is_host()) return {dlpack::cpu, 0};
  return {dlpack::cuda, where.index};
}

std::optional<dlpack_producer> dlpack_producer_of(nb::handle object) {
  nb::object dlpack = optional_attr(object, UFUNC_PY_NAME("__dlpack__"));
  if (!dlpack.is_valid()) return std::nullopt;
  nb::object dlpack_device = optional_attr(object, UFUNC_PY_NAME("__dlpack_device__"));
  if (!dlpack_device.is_valid()) return std::nullopt;
  return dlpack_producer{std::move(dlpack), std::move(dlpack_device)};
}

ufunc::array import_dlpack(const dlpack_producer& producer, std::int64_t stream) {
  const nb::object where = nb::steal(PyObject_CallNoArgs(producer.dlpack_device.ptr()));
  if (!where.is_valid()) throw nb::python_error();
  const int device_type = nb::cast<int>(where[0]);
  // The stream argument concerns CUDA memory only; host producers take None.
  const nb::object stream_arg =
      device_type == dlpack::cuda || device_type == dlpack::cuda_managed ? nb::object(nb::int_(stream)) : nb::none();
  // Called by vectorcall with keyword names and max_version made once: this runs for every device
  // operand of every call.
  static PyObject* const both_names = PyTuple_Pack(2, UFUNC_PY_NAME("stream"), UFUNC_PY_NAME("max_version"));
  static PyObject* const stream_name = PyTuple_Pack(1, UFUNC_PY_NAME("stream"));
  static PyObject* const max_version = Py_BuildValue("(II)", dlpack::major_version, dlpack::minor_version);
  PyObject* arguments[2] = {stream_arg.ptr(), max_version};
  nb::object capsule = nb::steal(PyObject_Vectorcall(producer.dlpack.ptr(), arguments, 0, both_names));
  if (!capsule.is_valid()) {
    // A producer of DLPack 0.x has no max_version argument.
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw nb::python_error();
    PyErr_Clear();
    capsule = nb::steal(PyObject_Vectorcall(producer.dlpack.ptr(), arguments, 0, stream_name));
    if (!capsule.is_valid()) throw nb::python_error();
  }
  PyObject* cap = capsule.ptr();
  if (PyCapsule_IsValid(cap, versioned_name)) {
    auto* m = static_cast<dlpack::managed_tensor_versioned*>(PyCapsule_GetPointer(cap, versioned_name));
    if (m->version.major > dlpack::major_version)
      throw value_error("the producer's DLPack version " + std::to_string(m->version.major) + "." +
                        std::to_string(m->version.minor) + " is newer than ufunc's (1.0)");
    // From here the tensor is ours: the capsule must not free it too.
    if (PyCapsule_SetName(cap, used_versioned_name) != 0) throw nb::python_error();
    std::shared_ptr<void> owner(m, [](void* p) {
      auto* t = static_cast<dlpack::managed_tensor_versioned*>(p);
      if (t->deleter != nullptr) t->deleter(t);
    });
    return array_of_tensor(m->dl_tensor, std::move(owner), (m->flags & dlpack::flag_read_only) != 0);
  }
  if (PyCapsule_IsValid(cap, legacy_name)) {
    auto* m = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(cap, legacy_name));
    if (PyCapsule_SetName(cap, used_legacy_name) != 0) throw nb::python_error();
    std::shared_ptr<void> owner(m, [](void* p) {
      auto* t = static_cast<dlpack::managed_tensor*>(p);
      if (t->deleter != nullptr) t->deleter(t);
    });
    return array_of_tensor(m->dl_tensor, std::move(owner), false);
  }
  throw value_error("__dlpack__ returned no DLPack capsule (or one already consumed)");
}

nb::object export_dlpack(const ufunc::array& a, bool versioned, nb::object stream_owner) {
  return versioned ? capsule_of<dlpack::managed_tensor_versioned>(a, versioned_name, std::move(stream_owner))
                   : capsule_of<dlpack::managed_tensor>(a, legacy_name, std::move(stream_owner));
}

}  // namespace ufunc::python
