// ThreadSanitizer suppressions for the distributed tests (and the reason
// there are any). See Note [TSan and gRPC] in distributed/rpc/transport.h;
// tsan.supp holds the same list for launch_test.
//
// Debian's gRPC, gpr, protobuf and abseil are not compiled with
// -fsanitize=thread. TSan sees only the calls those libraries make through
// its interceptors (epoll_create1/epoll_wait on a file descriptor, memmove,
// malloc/free), not the atomics and futexes they synchronize with, so it
// reports races between two such calls made by gRPC's own threads (seen
// here: the epoll fd of gRPC's poller, created on the main thread and
// waited on by a poller thread; abseil's GraphCycles memmove, absl::StrCat copying gRPC's
// configuration strings). These are
// not Ember's races and cannot be fixed in Ember.
//
// `called_from_lib` makes TSan ignore only the interceptor calls made from
// inside the named libraries. Every access made by Ember's own code, even
// on a gRPC thread (completion callbacks, reactors), is still checked, and
// a race between Ember's code and anything is still reported. No `race:`
// suppression is used: it would hide reports whose stacks merely pass
// through gRPC, which includes all of Ember's callbacks.
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:libgrpc.so\n"
         "called_from_lib:libgrpc++.so\n"
         "called_from_lib:libgpr.so\n"
         "called_from_lib:libabsl_synchronization.so\n"
         "called_from_lib:libabsl_graphcycles_internal.so\n"
         "called_from_lib:libabsl_strings.so\n"
         "called_from_lib:libabsl_strings_internal.so\n"
         "called_from_lib:libabsl_str_format_internal.so\n"
         "called_from_lib:libabsl_status.so\n"
         "called_from_lib:libabsl_statusor.so\n"
         "called_from_lib:libabsl_cord.so\n"
         "called_from_lib:libabsl_cord_internal.so\n"
         "called_from_lib:libabsl_base.so\n"
         "called_from_lib:libabsl_malloc_internal.so\n"
         "called_from_lib:libabsl_time.so\n"
         "called_from_lib:libabsl_hash.so\n"
         "called_from_lib:libabsl_raw_hash_set.so\n";
}
