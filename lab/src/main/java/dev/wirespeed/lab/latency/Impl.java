package dev.wirespeed.lab.latency;

import java.util.Arrays;
import java.util.Locale;

/** How {@code ping} (and, without the peer, {@code echo}) talks to the socket. */
public enum Impl {
    /** A JDK {@code SocketChannel}, blocking. */
    JDK(false, false),
    /** A JDK {@code SocketChannel}, non-blocking, busy-polled. */
    JDK_SPIN(false, true),
    /** The library's {@code NativeSocket} (FFM {@code read(2)}/{@code send(2)}), blocking. */
    NATIVE(true, false),
    /** The library's {@code NativeSocket}, non-blocking, busy-polled. */
    NATIVE_SPIN(true, true),
    /** The peer: Netty 4.2 over epoll (NIO where epoll is unavailable), event-loop driven; TCP only. */
    NETTY(false, false);

    private final boolean nativeSocket;
    private final boolean spin;

    Impl(boolean nativeSocket, boolean spin) {
        this.nativeSocket = nativeSocket;
        this.spin = spin;
    }

    /** {@return true for the library's native socket} */
    public boolean nativeSocket() {
        return nativeSocket;
    }

    /** {@return true where the socket is non-blocking and busy-polled} */
    public boolean spin() {
        return spin;
    }

    /** {@return the command-line name, as in {@code --impl native-spin}} */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * {@return the implementation of a command-line name}
     *
     * @param name as in {@code --impl}
     * @throws IllegalArgumentException naming the known ones
     */
    public static Impl byName(String name) {
        for (Impl impl : values()) {
            if (impl.cliName().equals(name)) {
                return impl;
            }
        }
        throw new IllegalArgumentException("unknown --impl '" + name + "'; known: "
                + String.join(", ", Arrays.stream(values()).map(Impl::cliName).toList()));
    }

    @Override
    public String toString() {
        return cliName();
    }
}
