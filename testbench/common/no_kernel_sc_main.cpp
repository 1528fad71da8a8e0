// The unit-test binary has its own main (GoogleTest's) and never starts a
// SystemC kernel, but it links the model library, which links libsystemc; a
// build that keeps libsystemc as a needed library (sanitizer builds) then needs
// the sc_main symbol libsystemc's own main refers to (declared extern "C" by SystemC).
extern "C" int sc_main(int, char**) {
  return 0;
}
