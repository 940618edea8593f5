/**
 * wirespeed native: Linux system calls through the Foreign Function and Memory API, with
 * {@code errno} captured on every call. Sockets and pipes ({@link dev.wirespeed.linux}), the event
 * loop's {@code epoll} transport ({@link dev.wirespeed.linux.epoll}) and io_uring
 * ({@link dev.wirespeed.linux.uring}), and TLS through OpenSSL 3 ({@link dev.wirespeed.linux.tls}); the
 * system-call layer, OpenSSL's bindings, the raw rings and the file-read provider
 * live in packages the module does not export. Needs {@code --enable-native-access=dev.wirespeed.linux}
 * (or {@code ALL-UNNAMED} on the class path) to run without a warning.
 */
module dev.wirespeed.linux {
    requires transitive dev.wirespeed.core;

    exports dev.wirespeed.linux;
    exports dev.wirespeed.linux.epoll;
    exports dev.wirespeed.linux.uring;
    exports dev.wirespeed.linux.tls;

    provides dev.wirespeed.io.spi.FileReadProvider with dev.wirespeed.linux.internal.files.LinuxFileReads;
}
