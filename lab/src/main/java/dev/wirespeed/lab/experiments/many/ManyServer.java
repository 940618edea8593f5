package dev.wirespeed.lab.experiments.many;

import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.Threads;
import dev.wirespeed.lab.pingpong.EchoArgs;
import dev.wirespeed.lab.pingpong.EchoImpl;
import dev.wirespeed.lab.result.Role;

/** A server of the many-connections experiment: an echo, each frame sent back unchanged. */
public enum ManyServer {
    /** {@code many echo}: one thread, epoll, a buffer per connection only while bytes are pending. */
    C_EPOLL("C epoll echo", Role.CEILING, null, true, true),
    /** {@code echo --loop}: the library's {@code FrameServer}, one loop over the JDK's {@code Selector}. */
    LOOP("wirespeed FrameServer, 1 loop", Role.LIBRARY, EchoArgs.of(EchoImpl.JDK).onLoops(), true, true),
    /** {@code echo --loop --impl native}: the same loop over {@code epoll} through FFM ({@code EpollTransport}). */
    LOOP_EPOLL("wirespeed FrameServer over epoll, 1 loop", Role.LIBRARY, EchoArgs.of(EchoImpl.NATIVE).onLoops(), true,
            true),
    /** {@code echo --loop --impl uring}: the same loop over io_uring through FFM ({@code IoUringTransport}). */
    LOOP_URING("wirespeed FrameServer over io_uring, 1 loop", Role.LIBRARY, EchoArgs.of(EchoImpl.URING).onLoops(), true,
            true),
    /** {@code echo --loop --impl uring --ring interrupt}: the io_uring loop with rings of no setup flags. */
    LOOP_URING_INTERRUPT("wirespeed FrameServer over io_uring, interrupt-driven ring", Role.LIBRARY,
            EchoArgs.of(EchoImpl.URING).onLoops(Ring.INTERRUPT), false, false),
    /**
     * {@code echo --loop --impl uring --ring sqpoll}: the io_uring loop with a kernel thread taking its
     * submissions, pinned to the server's own CPU (the load has the other).
     */
    LOOP_URING_SQPOLL("wirespeed FrameServer over io_uring, SQPOLL on its CPU", Role.LIBRARY,
            EchoArgs.of(EchoImpl.URING).onLoops(Ring.SQPOLL), false, false),
    /** The same with the server's JFR events on and a recording of JFR's default settings: what they cost. */
    LOOP_EPOLL_JFR("wirespeed FrameServer over epoll, JFR events on", Role.LIBRARY,
            EchoArgs.of(EchoImpl.NATIVE).onLoops().withJfr(), false, false),
    /** {@code echo --impl native}: the library's reader and writer, a platform thread per connection. */
    THREADS("wirespeed, a platform thread per connection", Role.LIBRARY, EchoArgs.of(EchoImpl.NATIVE), false, true),
    /** {@code echo --threads virtual}: the library over {@code SocketChannel}, a virtual thread per connection. */
    VIRTUAL("SocketChannel, a virtual thread per connection", Role.JDK,
            EchoArgs.of(EchoImpl.JDK).withThreads(Threads.VIRTUAL), false, true),
    /** {@code echo --impl netty}: Netty's epoll server, one event loop, {@code LengthFieldBasedFrameDecoder}. */
    NETTY("Netty epoll, 1 event loop", Role.PEER, EchoArgs.of(EchoImpl.NETTY), true, false),
    /** {@code echo --impl netty-uring}: the same server over Netty's io_uring transport. */
    NETTY_URING("Netty io_uring, 1 event loop", Role.PEER, EchoArgs.of(EchoImpl.NETTY_URING), false, false);

    private final String label;
    private final Role role;
    private final EchoArgs echo;
    private final boolean holdsIdle;
    private final boolean bounded;

    ManyServer(String label, Role role, EchoArgs echo, boolean holdsIdle, boolean bounded) {
        this.label = label;
        this.role = role;
        this.echo = echo;
        this.holdsIdle = holdsIdle;
        this.bounded = bounded;
    }

    /** {@return null where this machine can run the server, else why not} */
    public String unavailable() {
        return switch (this) {
            case C_EPOLL -> null;
            case NETTY, NETTY_URING -> echo.impl().netty().unavailable();
            default -> echo.loop() ? echo.impl().loop().unavailable() : echo.impl().api().unavailable();
        };
    }

    /** {@return the row's name in tables and results} */
    public String label() {
        return label;
    }

    /** {@return whose code it is} */
    public Role role() {
        return role;
    }

    /** {@return the {@code wirespeed echo} that serves, or null for the C server} */
    EchoArgs echo() {
        return echo;
    }

    /**
     * {@return whether the idle-memory case runs it} The thread-per-connection echoes give every
     * connection a reader of 512 KiB for its life: 10,000 of them would take 5 GB, which says nothing
     * the 1,000-connection load does not.
     */
    boolean holdsIdle() {
        return holdsIdle;
    }

    /**
     * {@return whether the slow-reader case runs it} Netty's echo here writes every frame back without
     * looking at the channel's writability, as its own example does, so a peer that never reads would
     * make it buffer without bound; the others stop reading such a peer (or block its thread).
     */
    boolean bounded() {
        return bounded;
    }
}
