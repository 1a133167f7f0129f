// The wheel's platform tag is set by the newest glibc symbol version the library needs. GCC 12's
// libstdc++ headers read glibc's __libc_single_threaded (GLIBC_2.32) to skip atomic reference
// counts in a process with one thread; glibc 2.32 has no manylinux policy of its own, so that one
// symbol alone would make the tag manylinux_2_34 and leave out systems torch's own wheel serves
// (manylinux_2_28). The library's own definition, hidden and always "not single-threaded" (the
// answer that is always safe: the atomic operations), binds those reads inside the library.
// Linked into the shared library only (CMakeLists.txt); the programs linking it read glibc's own.
extern "C" {
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
}
