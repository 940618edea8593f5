package dev.wirespeed.lab.cli;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.Listening;
import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.Threads;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.pingpong.EchoImpl;
import dev.wirespeed.lab.pingpong.EchoLoop;
import dev.wirespeed.lab.pingpong.NettyEcho;
import dev.wirespeed.lab.pingpong.Primer;
import dev.wirespeed.lab.pingpong.Sockets;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.loop.BlockHandler;
import dev.wirespeed.loop.Connection;
import dev.wirespeed.loop.ConnectionHandler;
import dev.wirespeed.loop.FrameServer;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import picocli.CommandLine.Command;

/** {@code wirespeed echo}: sends every frame back, for {@code ping}. */
@Command(name = "echo", mixinStandardHelpOptions = true,
        description = {"Sends every frame it receives back to its sender, unchanged: the other end of 'wirespeed ping'. "
                + "Each connection gets its own thread (--threads platform, the default, or virtual); output is flushed "
                + "whenever no whole input is left buffered. With --loop the connections share event loops instead "
                + "(the library's FrameServer; --loops N threads; over the JDK's Selector, epoll with --impl native, or "
                + "io_uring with --impl uring), "
                + "its handler taking each read's whole frames as one block and writing them back at once "
                + "(a BlockHandler), sent at the end of the read. With --tls the loop (or Netty's echo) speaks TLS, "
                + "with --cert and --key or a self-signed certificate for localhost made at start.",
            "With --prime N it first echoes N round trips of 100-byte frames to itself over a loopback connection, "
                + Primer.CONNECTIONS + " connections one after another, so that the JIT has compiled the echo's path, "
                + "its end of stream included, before the first peer.",
            "Prints 'listening on ADDRESS' on standard error once it accepts connections; runs until killed."})
public final class EchoCommand extends DirectCommand {
    /** {@code --transport}. */
    public static final Opt<Transport> TRANSPORT = Opt.ofName("--transport", "--transport", Transport.values(), null,
            "tcp or unix").required();

    /** {@code --impl}. */
    public static final Opt<EchoImpl> IMPL = Opt.ofName("--impl", "--impl", EchoImpl.values(), EchoImpl.JDK, "jdk "
            + "(SocketChannel), native (the library's FFM NativeSocket), uring (the library's IoUringSocket: a ring "
            + "per connection; --spin polls its completions), netty (Netty's epoll echo server, --loops event "
            + "loops; the peer) or netty-uring (the same over Netty's io_uring transport) (default ${DEFAULT-VALUE})");

    /** {@code --spin}. */
    public static final Opt<Boolean> SPIN = Opt.flag("--spin",
            "non-blocking sockets, busy-polled, instead of blocking in read");

    /** {@code --idle}; absent: {@link Idle#SPIN}. */
    public static final Opt<Idle> IDLE = Opt.ofName("--idle", "--idle", Idle.values(), null, "with --spin: what each "
            + "connection's reader and writer do between empty calls: spin (the default: yield every 8th), busy-spin, "
            + "yield, backoff");

    /** {@code --loop}. */
    public static final Opt<Boolean> LOOP = Opt.flag("--loop", "serve every connection from event loops "
            + "(FrameServer) rather than a thread each");

    /** {@code --ring}. */
    public static final Opt<Ring> RING = Opt.ofName("--ring", "--ring", Ring.values(), Ring.DEFAULT, "with --loop "
            + "--impl uring: how each loop's ring is set up: default (SINGLE_ISSUER and DEFER_TASKRUN where the kernel "
            + "takes them), interrupt (no flags), coop (COOP_TASKRUN, TASKRUN_FLAG), defer, or sqpoll (a kernel thread "
            + "on this process's first CPU takes the submissions) (default ${DEFAULT-VALUE})");

    /** {@code --loops}. */
    public static final Opt<Integer> LOOPS = Opt.ofInt("--loops", 1, "with --loop or --impl netty: event-loop "
            + "threads (default ${DEFAULT-VALUE})");

    /** {@code --jfr}. */
    public static final Opt<Boolean> JFR = Opt.flag("--jfr", "with --loop: the server's JFR events on, recorded in "
            + "memory with JFR's default settings for as long as the echo runs (to measure what they cost)");

    /** {@code --threads}. */
    public static final Opt<Threads> THREADS = Opt.ofName("--threads", "--threads", Threads.values(), Threads.PLATFORM,
            "without --loop: a platform or a virtual thread per connection (default ${DEFAULT-VALUE}); a spinning "
            + "echo needs platform threads");

    /** {@code --max-frame}. */
    public static final Opt<Integer> MAX_FRAME = Opt.ofInt("--max-frame", FrameFormat.DEFAULT_MAX_FRAME_LENGTH,
            "largest body accepted (default ${DEFAULT-VALUE})");

    /** {@code --prime}. */
    public static final Opt<Long> PRIME = Opt.ofLong("--prime", 0L, "round trips per priming connection before "
            + "listening; 0: none (default ${DEFAULT-VALUE})");

    /** The options of {@code echo}. */
    public static final Options OPTIONS = Options.of("echo", List.of(TRANSPORT), ListenOptions.ALL,
            List.of(IMPL, SPIN, IDLE, LOOP, RING, LOOPS, JFR, THREADS, MAX_FRAME, PRIME), TlsOptions.ALL);

    /** A command with every option at its default. */
    public EchoCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        Transport transport = args.get(TRANSPORT);
        ListenOptions listen = new ListenOptions(args);
        EchoImpl impl = args.get(IMPL);
        boolean spin = args.get(SPIN);
        Idle idle = args.get(IDLE);
        boolean loop = args.get(LOOP);
        Ring ring = args.get(RING);
        int loops = args.get(LOOPS);
        boolean jfr = args.get(JFR);
        Threads threads = args.get(THREADS);
        int maxFrame = args.get(MAX_FRAME);
        long prime = args.get(PRIME);
        TlsOptions tlsOptions = new TlsOptions(args);
        PrintWriter err = err();
        SocketAddress address;
        try {
            boolean netty = !impl.library();
            if (netty && (spin || prime > 0 || transport != Transport.TCP || threads == Threads.VIRTUAL)) {
                throw new IllegalArgumentException("--impl " + impl + " serves tcp from its event loops (--loops N), "
                        + "blocking in " + (impl == EchoImpl.NETTY ? "epoll" : "io_uring")
                        + ", unprimed: drop --spin, --prime, --threads and --transport unix");
            }
            FrameFormat.checkMaxFrameLength(maxFrame);
            if (prime < 0 || (prime > 0 && maxFrame < Primer.SIZE)) {
                throw new IllegalArgumentException("--prime=" + prime + " must be >= 0, and with priming --max-frame="
                        + maxFrame + " at least " + Primer.SIZE);
            }
            if (idle != null && !spin) {
                throw new IllegalArgumentException("--idle " + idle + " needs --spin");
            }
            if (prime > 0 && idle == Idle.BUSY_SPIN) {
                throw new IllegalArgumentException("--prime " + prime + " cannot go with --idle busy-spin: the primer "
                        + "runs in this process, and an echo that never yields would starve it");
            }
            if (threads == Threads.VIRTUAL && (spin || loop)) {
                throw new IllegalArgumentException("--threads virtual cannot go with " + (spin ? "--spin" : "--loop")
                        + ": " + (spin ? "a spinning connection would hold its carrier thread" : "loops are threads of their own"));
            }
            if (loops < 1 || loops > Defaults.MAX_LOOPS) {
                throw new IllegalArgumentException("--loops=" + loops + " must be 1 to " + Defaults.MAX_LOOPS);
            }
            if (jfr && !loop) {
                throw new IllegalArgumentException("--jfr needs --loop: the events are the loop's");
            }
            if (ring != Ring.DEFAULT && !(loop && impl == EchoImpl.URING)) {
                throw new IllegalArgumentException("--ring " + ring + " needs --loop --impl uring: it sets up "
                        + "the event loops' rings (each connection's own ring, without --loop, is the library's default)");
            }
            if (loops > 1 && !loop && !netty) {
                throw new IllegalArgumentException("--loops " + loops + " needs --loop or --impl netty");
            }
            if (tlsOptions.on() && !(loop || netty)) {
                throw new IllegalArgumentException("--tls needs --loop, or --impl netty: the library's TLS is on its "
                        + "event loops");
            }
            if (tlsOptions.on() && (prime > 0 || spin)) {
                throw new IllegalArgumentException("--tls cannot go with --prime or --spin");
            }
            address = listen.address(transport, Defaults.ECHO_PORT);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        IdleStrategy idleStrategy = (idle == null ? Idle.SPIN : idle).strategy();
        if (!impl.library()) {
            return serveNetty((InetSocketAddress) address, err);
        }
        if (loop) {
            return serveFromLoops(address, idleStrategy, err);
        }
        AtomicLong connections = new AtomicLong();
        Thread.Builder perConnection = threads.builder();
        try (Sockets.Listener listener = Sockets.listen(address, impl.api(), spin, idleStrategy)) {
            if (prime > 0) {
                long start = System.nanoTime();
                Primer primer = Primer.start(listener.localAddress(), prime, Primer.CONNECTIONS);
                for (int c = 0; c < Primer.CONNECTIONS; c++) {
                    ByteChannel connection = listener.accept();
                    EchoLoop.echo(connection, maxFrame, idleStrategy, err); // on this thread: one at a time
                }
                primer.await();
                sayPrimed(err, start);
            }
            err.println(Listening.PREFIX + listener.describe());
            err.flush();
            while (true) {
                ByteChannel connection = listener.accept();
                long id = connections.incrementAndGet();
                perConnection.name("echo-" + id).start(() -> EchoLoop.echo(connection, maxFrame, idleStrategy, err));
            }
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, e.getMessage());
        }
    }

    /** Netty's echo: runs until the process is killed. */
    private int serveNetty(InetSocketAddress address, PrintWriter err) {
        EchoImpl impl = args.get(IMPL);
        int loops = args.get(LOOPS);
        int maxFrame = args.get(MAX_FRAME);
        TlsOptions tlsOptions = new TlsOptions(args);
        try {
            SslContext ssl = tlsOptions.on() ? tlsOptions.nettyServer(err) : null;
            NettyEcho.serve(address, loops, maxFrame, bound -> {
                err.println(Listening.line(bound));
                err.flush();
            }, err, impl.netty(), ssl);
            return ExitCode.OK;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return usage("--tls: " + e.getMessage());
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
    }

    /** The echo on event loops: runs until the process is killed. */
    private int serveFromLoops(SocketAddress address, IdleStrategy idleStrategy, PrintWriter err) {
        EchoImpl impl = args.get(IMPL);
        boolean spin = args.get(SPIN);
        Ring ring = args.get(RING);
        int loops = args.get(LOOPS);
        boolean jfr = args.get(JFR);
        int maxFrame = args.get(MAX_FRAME);
        long prime = args.get(PRIME);
        TlsOptions tlsOptions = new TlsOptions(args);
        // Each read's whole frames written back at once, as the C echo sends back what it read.
        ConnectionHandler back = new BlockHandler() {
            @Override
            public void onFrames(Connection connection, ByteBuffer frames) {
                connection.writeFrames(frames);
            }

            @Override
            public void onClose(Connection connection, Throwable cause) {
                if (cause != null) {
                    synchronized (err) {
                        err.println("wirespeed echo: " + connection + " closed: " + cause.getMessage());
                        err.flush();
                    }
                }
            }
        };
        FrameServer.Builder builder = FrameServer.builder(back).bind(address).loops(loops).maxFrameLength(maxFrame)
                .threadName("echo-loop");
        try {
            impl.loop().apply(builder, ring);
        } catch (UnsupportedOperationException | NativeIoException e) {
            return fail(ExitCode.IO_FAILURE, "--impl " + impl + " --loop --ring " + ring + ": " + e.getMessage());
        }
        if (jfr) {
            builder.jfrEvents(true);
            startRecording();
        }
        if (spin) {
            builder.busyPoll(idleStrategy);
        }
        try {
            if (tlsOptions.on()) {
                builder.tls(tlsOptions.server(err));
            }
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            return usage("--tls: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
        try {
            FrameServer server = builder.start();
            SocketAddress bound = server.localAddresses().get(0);
            if (prime > 0) {
                long start = System.nanoTime();
                Primer.start(bound, prime, Primer.CONNECTIONS).await();
                sayPrimed(err, start);
            }
            err.println(Listening.line(bound));
            err.flush();
            Thread.currentThread().join(); // the loops serve until the process is killed
            return ExitCode.OK;
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
    }

    /** Says that priming, begun at {@code start} ({@code System.nanoTime()}), is over. */
    private void sayPrimed(PrintWriter err, long start) {
        long prime = args.get(PRIME);
        err.printf(Locale.ROOT, "primed: %d connections of %d round trips each in %d ms%n", Primer.CONNECTIONS, prime,
                (System.nanoTime() - start) / 1_000_000);
    }

    /** An in-memory recording with JFR's default settings and the server's events, kept until the JVM exits. */
    private static void startRecording() {
        try {
            Recording recording = new Recording(Configuration.getConfiguration("default"));
            for (String event : List.of("dev.wirespeed.ConnectionOpened", "dev.wirespeed.ConnectionClosed",
                    "dev.wirespeed.ProtocolError", "dev.wirespeed.LoopStatistics")) {
                recording.enable(event);
            }
            recording.setToDisk(false);
            recording.start();
        } catch (IOException | java.text.ParseException e) {
            throw new IllegalStateException("JFR's default configuration is unreadable: " + e.getMessage(), e);
        }
    }
}
