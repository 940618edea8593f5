package dev.wirespeed.lab.pingpong;

import dev.wirespeed.linux.uring.IoUringSupport;
import dev.wirespeed.linux.NativeSocket;

/** Which API a ping or echo reads and writes its socket through. */
public enum SocketApi {
    /** The JDK's {@code SocketChannel}. */
    JDK,
    /** The library's {@code NativeSocket}: {@code recv(2)} and {@code send(2)} through FFM. */
    NATIVE,
    /** The library's {@code IoUringSocket}: one io_uring {@code RECV} or {@code SEND} per call, over a {@code NativeSocket}. */
    URING;

    /** {@return null where this machine can run it, else why not} */
    public String unavailable() {
        return switch (this) {
            case JDK -> null;
            case NATIVE -> NativeSocket.isSupported() ? null : "the native path needs Linux on a 64-bit JVM";
            case URING -> !NativeSocket.isSupported() ? "the native path needs Linux on a 64-bit JVM"
                    : IoUringSupport.kernel().available() ? null : IoUringSupport.kernel().unavailableReason();
        };
    }
}
