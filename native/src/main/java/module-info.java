/**
 * wirespeed native: Linux system calls through the Foreign Function and Memory API, no JNI, each
 * failure reported with its call's name and error number. Sockets, pipes, CPU affinity and the shared
 * ring's futex sleep ({@link dev.wirespeed.linux}); the event loop's {@code epoll} transport ({@link
 * dev.wirespeed.linux.epoll}); io_uring: a transport for the loop, sockets on a ring of their own, and
 * what the kernel supports ({@link dev.wirespeed.linux.uring}); and a TLS engine on OpenSSL 3, found at
 * run time ({@link dev.wirespeed.linux.tls}). It provides core's {@link
 * dev.wirespeed.io.spi.FileReadProvider}, which {@link dev.wirespeed.io.ReadAll} finds by itself. The
 * system-call layer, the socket descriptors, the rings, OpenSSL's bindings and the file reads live in
 * packages the module does not export ({@code dev.wirespeed.linux.internal...}). Needs {@code
 * --enable-native-access=dev.wirespeed.linux} (or {@code ALL-UNNAMED} on the class path) to run without
 * a warning.
 */
module dev.wirespeed.linux {
    requires transitive dev.wirespeed.core;

    exports dev.wirespeed.linux;
    exports dev.wirespeed.linux.epoll;
    exports dev.wirespeed.linux.uring;
    exports dev.wirespeed.linux.tls;

    provides dev.wirespeed.io.spi.FileReadProvider with dev.wirespeed.linux.internal.files.LinuxFileReads;
}
