package dev.wirespeed.lab.cli;

import dev.wirespeed.io.StandardChannels;
import dev.wirespeed.lab.CliName;
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
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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
    /** A command whose options picocli sets. */
    public ServerCommand() {
    }

    @Option(names = "--transport", required = true, description = "tcp, unix or stdout")
    Transport transport;

    @Mixin
    ListenOptions listen = new ListenOptions();

    @Option(names = "--size", defaultValue = "100", converter = SizeConverter.class,
            description = "body size N or MIN-MAX (default ${DEFAULT-VALUE})")
    SizeRange size = SizeRange.parse("100");

    @Option(names = "--count", description = "frames per connection (default: endless)")
    Long count;

    @Option(names = "--write-per-frame", description = "one write call per frame instead of batching")
    boolean writePerFrame;

    @Option(names = "--threads", defaultValue = "platform", converter = Names.ThreadsName.class,
            description = "a platform or a virtual thread per connection (default ${DEFAULT-VALUE}; "
                    + "docs/investigations.md compares them)")
    Threads threads = Threads.PLATFORM;

    @Option(names = "--loop", description = "serve every connection from event loops (the library's FrameServer), "
            + "writing while a connection's output is under its limit and resuming when it drains; --threads and "
            + "--write-per-frame do not apply")
    boolean loop;

    @Option(names = "--loops", defaultValue = "1", description = "with --loop: loop threads (default ${DEFAULT-VALUE})")
    int loops = 1;

    @Option(names = "--impl", defaultValue = "jdk", converter = Names.ServerImplName.class,
            description = "with --loop: jdk (the JDK's Selector), native (epoll through FFM), uring (io_uring "
            + "through FFM), or netty (the peer: Netty's epoll server, --loops event loops, frames encoded into "
            + "pooled direct buffers and flushed per batch; tcp only) (default ${DEFAULT-VALUE})")
    ServerImpl impl = ServerImpl.JDK;

    @Mixin
    TlsOptions tlsOptions = new TlsOptions();

    @Option(names = "--pipe-size", description = "with --transport stdout: resize the pipe to this many bytes "
            + "(Linux F_SETPIPE_SZ; default: leave the pipe as it is, 64 KiB)")
    Integer pipeSize;

    @Override
    boolean flag(String name) {
        switch (name) {
            case "--write-per-frame" -> writePerFrame = true;
            case "--loop" -> loop = true;
            default -> {
                return false;
            }
        }
        return true;
    }

    @Override
    boolean value(String name, String value) {
        switch (name) {
            case "--transport" -> transport = CliName.byName(Transport.values(), "--transport", value);
            case "--size" -> size = SizeRange.parse(value);
            case "--count" -> count = longDigits(value);
            case "--threads" -> threads = CliName.byName(Threads.values(), "--threads", value);
            case "--loops" -> loops = digits(value);
            case "--impl" -> impl = CliName.byName(ServerImpl.values(), "--impl", value);
            case "--pipe-size" -> pipeSize = digits(value);
            default -> {
                return listen.value(name, value);
            }
        }
        return true;
    }

    @Override
    List<String> required() {
        return List.of("--transport");
    }

    @Override
    public Integer call() {
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
                    yield fail("cannot listen on " + address + ": " + e.getMessage());
                }
                yield serveSockets(server, listener, threads.builder());
            }
            default -> usage("--transport " + transport + " is not a server transport: use tcp, unix or stdout");
        };
    }

    /** The stream from event loops, the library's or Netty's: runs until the process is killed. */
    private int serveFromLoops() {
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
            return fail("cannot listen on " + address + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
    }

    /** A streaming connection's output limit: 1 MiB, so that a turn's writes are large ones. */
    static final long LOOP_OUTPUT_LIMIT = 1024 * 1024;

    private int usage(String message) {
        say(message);
        return ExitCode.USAGE;
    }

    private int fail(String message) {
        say(message);
        return ExitCode.IO_FAILURE;
    }

    private void say(String message) {
        PrintWriter err = err();
        err.println("wirespeed server: " + message);
        err.flush();
    }

    private boolean resizePipe(int bytes) {
        try {
            Pipes.resize(1, bytes);
            return true;
        } catch (NativeIoException | UnsupportedOperationException e) {
            say("--pipe-size " + bytes + " failed: " + e.getMessage());
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
            say("accept failed: " + e.getMessage());
            return ExitCode.IO_FAILURE;
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

    /** Converts {@code --size}. */
    static final class SizeConverter implements picocli.CommandLine.ITypeConverter<SizeRange> {
        @Override
        public SizeRange convert(String value) {
            return SizeRange.parse(value);
        }
    }
}
