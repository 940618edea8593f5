package dev.wirespeed.lab.experiments.hostile;

import dev.wirespeed.lab.pingpong.EchoArgs;
import dev.wirespeed.lab.pingpong.EchoImpl;
import dev.wirespeed.lab.result.Role;
import java.util.List;

/**
 * A server of the hostile experiment: {@code wirespeed echo --transport tcp}, the library's event loop
 * on each of its transports with its defaults for a hostile network, or Netty's echo.
 */
public enum HostileServer {
    /** {@code echo --loop --impl jdk}: the library's {@code FrameServer}, one loop over the JDK's {@code Selector}. */
    LOOP("wirespeed FrameServer, Selector", Role.LIBRARY, EchoArgs.of(EchoImpl.JDK).onLoops()),
    /** {@code echo --loop --impl native}: the same loop over {@code epoll} through FFM. */
    LOOP_EPOLL("wirespeed FrameServer, epoll", Role.LIBRARY, EchoArgs.of(EchoImpl.NATIVE).onLoops()),
    /** {@code echo --loop --impl uring}: the same loop over io_uring through FFM. */
    LOOP_URING("wirespeed FrameServer, io_uring", Role.LIBRARY, EchoArgs.of(EchoImpl.URING).onLoops()),
    /** {@code echo --impl netty}: Netty's epoll echo, one event loop, {@code LengthFieldBasedFrameDecoder}. */
    NETTY("Netty epoll echo", Role.PEER, EchoArgs.of(EchoImpl.NETTY));

    /** The library's servers, each judged against {@link #NETTY}. */
    static final List<HostileServer> OURS = List.of(LOOP, LOOP_EPOLL, LOOP_URING);

    private final String label;
    private final Role role;
    private final EchoArgs echo;

    HostileServer(String label, Role role, EchoArgs echo) {
        this.label = label;
        this.role = role;
        this.echo = echo;
    }

    /** {@return the row's name in tables and results} */
    public String label() {
        return label;
    }

    /** {@return whose code it is} */
    public Role role() {
        return role;
    }

    /** {@return null where this machine can run the server, else why not} */
    public String unavailable() {
        return echo.loop() ? echo.impl().loop().unavailable() : echo.impl().netty().unavailable();
    }

    /** {@return the {@code wirespeed echo} that serves} */
    EchoArgs echo() {
        return echo;
    }
}
