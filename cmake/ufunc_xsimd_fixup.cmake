# Debian 12's xsimd 8.1 package exports a target that links a library named 'xtl'
# (an optional dependency it does not require). We use xsimd's headers only, so
# when no 'xtl' target exists the stray link item is dropped instead of failing
# at link time with "cannot find -lxtl".
include_guard(GLOBAL)
if(TARGET xsimd AND NOT TARGET xtl)
  get_target_property(_ufunc_xsimd_links xsimd INTERFACE_LINK_LIBRARIES)
  if(_ufunc_xsimd_links)
    list(REMOVE_ITEM _ufunc_xsimd_links xtl)
    set_target_properties(xsimd PROPERTIES INTERFACE_LINK_LIBRARIES "${_ufunc_xsimd_links}")
  endif()
endif()
