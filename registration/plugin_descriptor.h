// registration/plugin_descriptor.h — the descriptor every Ember plugin carries.
//
// A plugin (a backend, or a library of custom ops) is a shared object that
// registers kernels from its static initializers. Before any of that code
// runs, the loader (registration/plugin_loader.h) reads the plugin's
// descriptor straight from the file and refuses a plugin built for another
// Ember. Plugin authors do not include it: they write EMBER_PLUGIN(name)
// from sdk/plugin.h, which fills the descriptor with the SDK's fingerprint.
//
// Do not use this header for anything else: it is the one piece of a plugin
// the loader reads without running it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

// EMBER_ABI_VERSION
//
// The version of the binary interface between the core and its plugins.
// Bump it whenever a change would break a plugin compiled against the old
// headers in a way the ABI fingerprint would not catch (e.g. a change in
// behaviour behind an unchanged declaration; See Note [ABI fingerprint] in
// bazel/abi_fingerprint.py).
#define EMBER_ABI_VERSION 1

namespace c10 {

// Note [Plugin descriptor]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The descriptor is a constant object in an ELF section of its own,
// ".ember_plugin", so the loader finds it through the section headers with
// plain file reads: no plugin code runs until the checks pass. For that, it
// holds only fixed-size plain data (no pointers, hence no relocations): the
// bytes in the file are the bytes the object has at run time.
//
// `magic` and `layout_version` are the first 12 bytes of every layout, now
// and in the future, so any loader can tell "not a descriptor" from "a
// descriptor of a layout I do not know". Change the layout only by bumping
// kPluginDescriptorLayout.
//
// The section must survive `--gc-sections` and hidden-by-default visibility:
// the object is `used` (kept by the compiler), exported with default
// visibility (the linker keeps what a shared object exports), and `retain`
// (SHF_GNU_RETAIN) where the compiler supports it.

// "EMBERPLG" read as a little-endian 64-bit integer.
constexpr uint64_t kPluginDescriptorMagic = 0x474C505245424D45ull;
constexpr uint32_t kPluginDescriptorLayout = 1;
constexpr size_t kPluginNameSize = 64;
constexpr size_t kPluginFingerprintSize = 128;

// c10::PluginDescriptor
//
// Layout 1. Strings are NUL-terminated within their arrays. Write one with
// EMBER_PLUGIN, not by hand.
struct PluginDescriptor {
  uint64_t magic;           // kPluginDescriptorMagic
  uint32_t layout_version;  // kPluginDescriptorLayout
  uint32_t abi_version;     // EMBER_ABI_VERSION the plugin was compiled with
  char name[kPluginNameSize];
  char fingerprint[kPluginFingerprintSize];  // the SDK's ABI fingerprint
};

static_assert(std::is_trivially_copyable<PluginDescriptor>::value &&
                  std::is_standard_layout<PluginDescriptor>::value,
              "the loader copies the descriptor's bytes out of the file");
static_assert(offsetof(PluginDescriptor, layout_version) == 8 &&
                  offsetof(PluginDescriptor, name) == 16 &&
                  sizeof(PluginDescriptor) == 208,
              "layout 1 is fixed; see Note [Plugin descriptor]");

}  // namespace c10

#if defined(__has_attribute)
#if __has_attribute(retain)
#define EMBER_PLUGIN_RETAIN_ retain,
#endif
#endif
#ifndef EMBER_PLUGIN_RETAIN_
#define EMBER_PLUGIN_RETAIN_
#endif

// Clang's AddressSanitizer pads every instrumented global with a redzone,
// which would grow the .ember_plugin section past one descriptor (208 bytes
// became 256) and the loader would refuse the plugin; the descriptor is read
// from the file, never through a pointer, so it needs no redzone. GCC does
// not pad variables placed in a named section.
#if defined(__clang__)
#define EMBER_PLUGIN_NO_REDZONE_ no_sanitize("address"),
#else
#define EMBER_PLUGIN_NO_REDZONE_
#endif

// EMBER_PLUGIN_DESCRIPTOR(name, fingerprint)
//
// Defines a descriptor (See Note [Plugin descriptor]) with a given
// fingerprint string literal. Plugins write EMBER_PLUGIN(name) from
// sdk/plugin.h instead; the loader's tests use this to build descriptors
// that must be refused.
#define EMBER_PLUGIN_DESCRIPTOR(name, fingerprint)                       \
  extern "C" __attribute__((section(".ember_plugin"), used,              \
                            EMBER_PLUGIN_RETAIN_ EMBER_PLUGIN_NO_REDZONE_ \
                            visibility("default")))                       \
  const ::c10::PluginDescriptor ember_plugin_descriptor = {              \
      ::c10::kPluginDescriptorMagic, ::c10::kPluginDescriptorLayout,     \
      EMBER_ABI_VERSION, #name, fingerprint};
