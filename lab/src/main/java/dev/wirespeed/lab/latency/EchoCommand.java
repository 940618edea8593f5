package dev.wirespeed.lab.latency;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.ListenOptions;
import dev.wirespeed.lab.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.nio.channels.ByteChannel;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code wirespeed echo}: sends every frame back, for {@code ping}. */
@Command(name = "echo", mixinStandardHelpOptions = true,
        description = {"Sends every frame it receives back to its sender, unchanged: the other end of 'wirespeed ping'. "
                + "Each connection gets its own thread; output is flushed whenever no whole input is left buffered.",
            "With --prime N it first echoes N round trips of 100-byte frames to itself over a loopback connection, "
                + Primer.CONNECTIONS + " connections one after another, so that the JIT has compiled the echo's path, "
                + "its end of stream included, before the first peer.",
            "Prints 'listening on ADDRESS' on standard error once it accepts connections; runs until killed."})
public final class EchoCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public EchoCommand() {
    }

    @Option(names = "--transport", required = true, description = "tcp or unix")
    Transport transport;

    /** The TCP port when {@code --port} is absent, apart from the stream server's so both can run. */
    static final int DEFAULT_PORT = 22223;

    @CommandLine.Mixin
    ListenOptions listen;

    @Option(names = "--impl", defaultValue = "jdk", description = "jdk (SocketChannel) or native (the library's "
            + "FFM NativeSocket) (default ${DEFAULT-VALUE})")
    String impl;

    @Option(names = "--spin", description = "non-blocking sockets, busy-polled, instead of blocking in read")
    boolean spin;

    @Option(names = "--idle", description = "with --spin: what each connection's reader and writer do between "
            + "empty calls: spin (the default: yield every 8th), busy-spin, yield, backoff")
    String idle;

    @Option(names = "--max-frame", defaultValue = "16777216", description = "largest body accepted (default ${DEFAULT-VALUE})")
    int maxFrame;

    @Option(names = "--prime", defaultValue = "0", description = "round trips per priming connection before "
            + "listening; 0: none (default ${DEFAULT-VALUE})")
    long prime;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        boolean nativeSocket;
        SocketAddress address;
        Idle chosenIdle;
        try {
            nativeSocket = switch (impl) {
                case "jdk" -> false;
                case "native" -> true;
                default -> throw new IllegalArgumentException("--impl " + impl + ": use jdk or native (--spin to busy-poll)");
            };
            FrameFormat.checkMaxFrameLength(maxFrame);
            if (prime < 0 || (prime > 0 && maxFrame < Primer.SIZE)) {
                throw new IllegalArgumentException("--prime=" + prime + " must be >= 0, and with priming --max-frame="
                        + maxFrame + " at least " + Primer.SIZE);
            }
            chosenIdle = idle == null ? Idle.SPIN : Idle.byName(idle);
            if (idle != null && !spin) {
                throw new IllegalArgumentException("--idle " + idle + " needs --spin");
            }
            if (prime > 0 && chosenIdle == Idle.BUSY_SPIN) {
                throw new IllegalArgumentException("--prime " + prime + " cannot go with --idle busy-spin: the primer "
                        + "runs in this process, and an echo that never yields would starve it");
            }
            address = listen.address(transport, DEFAULT_PORT);
        } catch (IllegalArgumentException e) {
            err.println("wirespeed echo: " + e.getMessage());
            return ExitCode.USAGE;
        }
        AtomicLong connections = new AtomicLong();
        IdleStrategy idleStrategy = chosenIdle.strategy();
        try (Sockets.Listener listener = Sockets.listen(address, nativeSocket, spin)) {
            if (prime > 0) {
                long start = System.nanoTime();
                Primer primer = Primer.start(listener.localAddress(), prime, Primer.CONNECTIONS);
                for (int c = 0; c < Primer.CONNECTIONS; c++) {
                    ByteChannel connection = listener.accept();
                    echo(connection, maxFrame, idleStrategy, err); // on this thread: one at a time
                }
                primer.await();
                err.printf(Locale.ROOT, "primed: %d connections of %d round trips each in %d ms%n", Primer.CONNECTIONS,
                        prime, (System.nanoTime() - start) / 1_000_000);
            }
            err.println("listening on " + listener.describe());
            err.flush();
            while (true) {
                ByteChannel connection = listener.accept();
                long id = connections.incrementAndGet();
                // Platform threads: a spinning echo must own its CPU, not share a carrier.
                Thread.ofPlatform().daemon().name("echo-" + id).start(() -> echo(connection, maxFrame, idleStrategy, err));
            }
        } catch (IOException e) {
            err.println("wirespeed echo: " + e.getMessage());
            err.flush();
            return ExitCode.IO_FAILURE;
        }
    }

    /** Reads of {@link #echoSome} per call; see {@link #echo}. */
    static final int BATCH = 64;

    /**
     * Echoes one connection until it ends; a connection that breaks the wire format is closed and named.
     *
     * <p>The reads are made {@value #BATCH} at a time by one method, so that the JIT compiles that
     * method by its calls, early, and the loop around it, which the JVM compiles only by on-stack
     * replacement after tens of thousands of iterations, runs once per batch: its compilation, which
     * would take the CPU from a ping sharing it in the middle of a measurement, comes after millions
     * of round trips, if ever.
     */
    static void echo(ByteChannel connection, int maxFrame, IdleStrategy idle, PrintWriter err) {
        try (connection) {
            FrameReader reader = FrameReader.builder(connection).maxFrameLength(maxFrame).idleStrategy(idle).build();
            FrameWriter writer = FrameWriter.builder(connection).bufferCapacity(64 * 1024).maxFrameLength(maxFrame)
                    .idleStrategy(idle).build();
            FrameHandler back = writer::writeFrame;
            while (echoSome(reader, writer, back)) {
                // the work is in echoSome
            }
            writer.flush();
        } catch (IOException e) {
            // The client went away or sent garbage: say so and keep serving the others.
            synchronized (err) {
                err.println("wirespeed echo: connection closed: " + e.getMessage());
                err.flush();
            }
        }
    }

    /** Up to {@value #BATCH} reads, each echoing what it read; {@return false at the end of the stream} */
    private static boolean echoSome(FrameReader reader, FrameWriter writer, FrameHandler back) throws IOException {
        for (int k = 0; k < BATCH; k++) {
            if (reader.readFrames(back, Integer.MAX_VALUE) == 0) {
                return false;
            }
            if (reader.available() == 0) {
                writer.flush(); // nothing left to batch with: the next read may block
            }
        }
        return true;
    }
}
