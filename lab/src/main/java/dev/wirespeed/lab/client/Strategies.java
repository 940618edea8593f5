package dev.wirespeed.lab.client;

import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.NettyTransport;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.result.Role;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;

/** The client strategies by their command-line names, in the articles' order, then ours. */
public enum Strategies implements CliName {
    /**
     * The first article's starting point: the socket's own stream, {@code readInt} as four {@code read()}
     * calls, new arrays for every message; six system calls per message.
     */
    UNBUFFERED(idle -> new StreamClient(false, false, false)),
    /** No buffering; {@code readInt} reads its four bytes with one call: three calls per message. */
    READINT(idle -> new StreamClient(false, true, false)),
    /** "One trivial line of code": a {@code BufferedInputStream}, the original {@code readInt}. */
    BUFFERED(idle -> new StreamClient(true, false, false)),
    /** {@code BufferedInputStream} and the four-bytes-at-once {@code readInt}. */
    BUFFERED_READINT(idle -> new StreamClient(true, true, false)),
    /** Both, with the arrays re-used; the article found it slower. */
    NO_ALLOC(idle -> new StreamClient(true, true, true)),
    /** Channel and direct buffer, append-until-end {@code ensure()}, body copied. */
    CHANNEL(idle -> new ChannelClient()),
    /** Compact-on-demand {@code ensure()}, body copied. */
    CHANNEL_COMPACT(idle -> new ChannelCompactClient()),
    /** Compact-on-demand, body passed as a buffer view. */
    ZERO_COPY(idle -> new ZeroCopyClient()),
    /** The library's {@code FrameReader}. */
    WIRESPEED(idle -> new WirespeedClient(), Role.LIBRARY, Transports.ANY),
    /** The library's {@code FrameReader}, busy-polling a non-blocking socket. */
    WIRESPEED_SPIN(WirespeedSpinClient::new, Role.LIBRARY, Transports.ANY),
    /** The library's {@code FrameReader} over a {@code NativeSocket}: FFM {@code read(2)}, blocking (TCP, Unix). */
    NATIVE(idle -> new NativeClient(false, idle), Role.LIBRARY, EnumSet.of(Transport.TCP, Transport.UNIX)),
    /** The same, the socket non-blocking and busy-polled: the fast-sockets article's case (TCP, Unix). */
    NATIVE_SPIN(idle -> new NativeClient(true, idle), Role.LIBRARY, EnumSet.of(Transport.TCP, Transport.UNIX)),
    /** The library's {@code FrameReader} over an {@code IoUringSocket}: each refill a {@code RECV} waited for in {@code io_uring_enter} (TCP, Unix). */
    URING(idle -> new UringClient(null), Role.LIBRARY, EnumSet.of(Transport.TCP, Transport.UNIX)),
    /** The same, each {@code RECV} submitted and its completion polled for in user space (TCP, Unix). */
    URING_SPIN(UringClient::new, Role.LIBRARY, EnumSet.of(Transport.TCP, Transport.UNIX)),
    /** The peer: Netty 4.2, {@code LengthFieldBasedFrameDecoder}, NIO transport (TCP only). */
    NETTY_NIO(idle -> new NettyClient(NettyTransport.NIO), Role.PEER, EnumSet.of(Transport.TCP)),
    /** The peer: Netty 4.2, {@code LengthFieldBasedFrameDecoder}, native epoll transport (TCP on Linux only). */
    NETTY_EPOLL(idle -> new NettyClient(NettyTransport.EPOLL), Role.PEER, EnumSet.of(Transport.TCP)),
    /** The peer: Netty 4.2, {@code LengthFieldBasedFrameDecoder}, native io_uring transport (TCP on Linux only). */
    NETTY_URING(idle -> new NettyClient(NettyTransport.IO_URING), Role.PEER, EnumSet.of(Transport.TCP)),
    /**
     * The library's {@code FrameClient} on one event loop of its own, over epoll through FFM (the JDK's
     * {@code Selector} where epoll is unavailable): frames handed over on the loop thread (TCP, Unix; TLS).
     */
    LOOP(idle -> new LoopClient(), Role.LIBRARY, EnumSet.of(Transport.TCP, Transport.UNIX));

    private final Function<IdleStrategy, Strategy> factory;
    private final Role role;
    private final Set<Transport> transports;

    Strategies(Function<IdleStrategy, Strategy> factory) {
        this(factory, Role.ARTICLE, Transports.ANY);
    }

    Strategies(Function<IdleStrategy, Strategy> factory, Role role, Set<Transport> transports) {
        this.factory = factory;
        this.role = role;
        this.transports = transports;
    }

    /** {@return whose code it is: an article's client, the library's reader, or the peer} */
    public Role role() {
        return role;
    }

    /** {@return true for the peers (Netty): their own error wording} */
    public boolean peer() {
        return role == Role.PEER;
    }

    /**
     * {@return whether this strategy reads {@code transport}} The sockets-only ones open their own socket.
     *
     * @param transport a client transport
     */
    public boolean supports(Transport transport) {
        return transports.contains(transport);
    }

    /** {@return the transports this strategy reads, as a command line names them: "tcp" or "tcp or unix"} */
    public String transportNames() {
        return String.join(" or ", transports.stream().map(Transport::toString).toList());
    }

    /** {@return a new instance of this strategy, busy-polling (where it does) with the library's default} */
    public Strategy create() {
        return create(IdleStrategy.defaultStrategy());
    }

    /**
     * {@return a new instance of this strategy}
     *
     * @param idle what a busy-polling strategy does between empty reads; the others ignore it
     */
    public Strategy create(IdleStrategy idle) {
        return factory.apply(idle);
    }

    /**
     * {@return whether this strategy speaks TLS where its source has it ({@code client --tls})}: the
     * library's client loop and the Netty peers, which open their own connections
     */
    public boolean speaksTls() {
        return this == LOOP || peer();
    }

    /** {@return whether this strategy busy-polls a non-blocking socket, and so takes an idle strategy} */
    public boolean polls() {
        return this == WIRESPEED_SPIN || this == NATIVE_SPIN || this == URING_SPIN;
    }

    @Override
    public String toString() {
        return cliName();
    }

    /** The transports of the strategies that read whatever {@link Source} gives them. */
    private static final class Transports {
        static final Set<Transport> ANY = EnumSet.of(Transport.TCP, Transport.UNIX, Transport.STDIN, Transport.FILE);
    }
}
