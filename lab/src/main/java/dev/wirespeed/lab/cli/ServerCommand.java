package dev.wirespeed.lab.cli;

import dev.wirespeed.io.StandardChannels;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Listening;
import dev.wirespeed.lab.Threads;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.server.LoopStreams;
import dev.wirespeed.lab.server.NettyStreams;
import dev.wirespeed.lab.server.SequenceServer;
import dev.wirespeed.lab.server.ServerImpl;
import dev.wirespeed.lab.server.SizeRange;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.Pipes;
import dev.wirespeed.loop.FrameServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;

/** {@code wirespeed server}: streams the sequence stream to every client that connects, or to stdout. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Streams the sequence stream (frames 0, 1, 2, ...): to each TCP or Unix connection from "
                + "frame 0, accepting connections until killed; or to standard output, ending quietly when the "
                + "reader goes away.",
            "With --loop the connections share event loops: the library's FrameServer (over the JDK's Selector, "
                + "epoll with --impl native, io_uring with --impl uring) or, with --impl netty, Netty's epoll server; "
                + "with --tls they speak TLS, with --cert and --key or a self-signed certificate for localhost made "
                + "at start.",
            "Prints 'listening on ADDRESS' on standard error once it accepts connections."})
public final class ServerCommand extends DirectCommand {
    /** {@code --transport}. */
    public static final Opt<Transport> TRANSPORT = Opt.ofName("--transport", "--transport", Transport.values(), null,
            "tcp, unix or stdout").required();

    /** {@code --size}. */
    public static final Opt<SizeRange> SIZE = Opt.of("--size", SizeRange.class, SizeRange::parse, SizeRange::toString,
            SizeRange.parse("100"), "body size N or MIN-MAX (default ${DEFAULT-VALUE})");

    /** {@code --count}; absent: endless. */
    public static final Opt<Long> COUNT = Opt.ofLong("--count", null, "frames per connection (default: endless)");

    /** {@code --write-per-frame}. */
    public static final Opt<Boolean> WRITE_PER_FRAME = Opt.flag("--write-per-frame",
            "one write call per frame instead of batching");

    /** {@code --threads}. */
    public static final Opt<Threads> THREADS = Opt.ofName("--threads", "--threads", Threads.values(), Threads.PLATFORM,
            "a platform or a virtual thread per connection (default ${DEFAULT-VALUE}; docs/investigations.md "
            + "compares them)");

    /** {@code --loop}. */
    public static final Opt<Boolean> LOOP = Opt.flag("--loop", "serve every connection from event loops (the "
            + "library's FrameServer), writing while a connection's output is under its limit and resuming when it "
            + "drains; --threads and --write-per-frame do not apply");

    /** {@code --loops}. */
    public static final Opt<Integer> LOOPS = Opt.ofInt("--loops", 1, "with --loop: loop threads (default "
            + "${DEFAULT-VALUE})");

    /** {@code --impl}. */
    public static final Opt<ServerImpl> IMPL = Opt.ofName("--impl", "--impl", ServerImpl.values(), ServerImpl.JDK,
            "with --loop: jdk (the JDK's Selector), native (epoll through FFM), uring (io_uring through FFM), or "
            + "netty (the peer: Netty's epoll server, --loops event loops, frames encoded into pooled direct buffers "
            + "and flushed per batch; tcp only) (default ${DEFAULT-VALUE})");

    /** {@code --pipe-size}; absent: the pipe as it is. */
    public static final Opt<Integer> PIPE_SIZE = Opt.ofInt("--pipe-size", null, "with --transport stdout: resize "
            + "the pipe to this many bytes (Linux F_SETPIPE_SZ; default: leave the pipe as it is, 64 KiB)");

    /** The options of {@code server}. */
    public static final Options OPTIONS = Options.of("server", List.of(TRANSPORT), ListenOptions.ALL,
            List.of(SIZE, COUNT, WRITE_PER_FRAME, THREADS, LOOP, LOOPS, IMPL), TlsOptions.ALL, List.of(PIPE_SIZE));

    /** A command with every option at its default. */
    public ServerCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        Transport transport = args.get(TRANSPORT);
        ListenOptions listen = new ListenOptions(args);
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        boolean writePerFrame = args.get(WRITE_PER_FRAME);
        Threads threads = args.get(THREADS);
        boolean loop = args.get(LOOP);
        int loops = args.get(LOOPS);
        ServerImpl impl = args.get(IMPL);
        TlsOptions tlsOptions = new TlsOptions(args);
        Integer pipeSize = args.get(PIPE_SIZE);
        if (count != null && count < 0) {
            return usage("--count=" + count + " must be >= 0");
        }
        if (!loop && (loops != 1 || impl != ServerImpl.JDK || tlsOptions.on())) {
            return usage("--loops, --impl and --tls need --loop");
        }
        if (impl == ServerImpl.NETTY && transport != Transport.TCP) {
            return usage("--impl netty serves tcp only, not " + transport);
        }
        if (loop && (writePerFrame || transport == Transport.STDOUT)) {
            return usage("--loop serves tcp and unix connections, batching: drop --write-per-frame and stdout");
        }
        if (loops < 1 || loops > Defaults.MAX_LOOPS) {
            return usage("--loops=" + loops + " must be 1 to " + Defaults.MAX_LOOPS);
        }
        if (loop) {
            return serveFromLoops();
        }
        SequenceServer server = new SequenceServer(size, count == null ? Long.MAX_VALUE : count, writePerFrame);
        return switch (transport) {
            case STDOUT -> {
                if (pipeSize != null && !resizePipe(pipeSize)) {
                    yield ExitCode.IO_FAILURE;
                }
                yield serveStdout(server);
            }
            case TCP, UNIX -> {
                SocketAddress address;
                try {
                    address = listen.address(transport, Defaults.STREAM_PORT);
                } catch (IllegalArgumentException e) {
                    yield usage(e.getMessage());
                }
                ServerSocketChannel listener;
                try {
                    listener = listen(address);
                } catch (IOException e) {
                    yield fail(ExitCode.IO_FAILURE, "cannot listen on " + address + ": " + e.getMessage());
                }
                yield serveSockets(server, listener, threads.builder());
            }
            default -> usage("--transport " + transport + " is not a server transport: use tcp, unix or stdout");
        };
    }

    /** The stream from event loops, the library's or Netty's: runs until the process is killed. */
    private int serveFromLoops() {
        Transport transport = args.get(TRANSPORT);
        ListenOptions listen = new ListenOptions(args);
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        int loops = args.get(LOOPS);
        ServerImpl impl = args.get(IMPL);
        TlsOptions tlsOptions = new TlsOptions(args);
        SocketAddress address;
        try {
            address = listen.address(transport, Defaults.STREAM_PORT);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        PrintWriter err = err();
        long frames = count == null ? Long.MAX_VALUE : count;
        try {
            SocketAddress bound;
            if (impl == ServerImpl.NETTY) {
                bound = NettyStreams.start((InetSocketAddress) address, loops, size, frames, LOOP_OUTPUT_LIMIT,
                        impl.netty(), tlsOptions.on() ? tlsOptions.nettyServer(err) : null).localAddress();
            } else {
                FrameServer.Builder builder = FrameServer.builder(new LoopStreams(size, frames)).bind(address)
                        .loops(loops).outputLimit(LOOP_OUTPUT_LIMIT).threadName("server-loop");
                try {
                    impl.loop().apply(builder);
                } catch (UnsupportedOperationException e) {
                    return usage("--impl " + impl + ": " + e.getMessage());
                }
                if (tlsOptions.on()) {
                    builder.tls(tlsOptions.server(err));
                }
                bound = builder.start().localAddresses().get(0);
            }
            err.println(Listening.line(bound));
            err.flush();
            Thread.currentThread().join(); // the loops serve until the process is killed
            return ExitCode.OK;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return usage("--tls: " + e.getMessage());
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, "cannot listen on " + address + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
    }

    /** A streaming connection's output limit: 1 MiB, so that a turn's writes are large ones. */
    static final long LOOP_OUTPUT_LIMIT = 1024 * 1024;

    private boolean resizePipe(int bytes) {
        try {
            Pipes.resize(1, bytes);
            return true;
        } catch (NativeIoException | UnsupportedOperationException e) {
            fail(ExitCode.IO_FAILURE, "--pipe-size " + bytes + " failed: " + e.getMessage());
            return false;
        }
    }

    private static int serveStdout(SequenceServer server) {
        try {
            server.serve(StandardChannels.stdout());
        } catch (IOException e) {
            // The reader went away (EPIPE): the normal end of an endless stream.
        }
        return ExitCode.OK;
    }

    private static ServerSocketChannel listen(SocketAddress address) throws IOException {
        ServerSocketChannel channel = address instanceof UnixDomainSocketAddress
                ? ServerSocketChannel.open(StandardProtocolFamily.UNIX)
                : ServerSocketChannel.open();
        try {
            channel.bind(address, 64);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    private int serveSockets(SequenceServer server, ServerSocketChannel listener, Thread.Builder threads) {
        PrintWriter err = err();
        err.println(Listening.PREFIX + describe(listener));
        err.flush();
        AtomicLong connections = new AtomicLong();
        try (listener) {
            while (true) {
                SocketChannel connection = listener.accept();
                long id = connections.incrementAndGet();
                threads.name("connection-" + id).start(() -> serve(server, connection, id));
            }
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, "accept failed: " + e.getMessage());
        }
    }

    private static void serve(SequenceServer server, SocketChannel connection, long id) {
        try (connection) {
            server.serve(connection);
        } catch (IOException e) {
            // The client went away mid-stream: expected for endless streams; the others keep being served.
        }
    }

    private static String describe(ServerSocketChannel listener) {
        try {
            return Listening.describe(listener.getLocalAddress());
        } catch (IOException e) {
            return "?";
        }
    }
}
