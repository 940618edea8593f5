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
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code wirespeed echo}: sends every frame back, for {@code ping}. */
@Command(name = "echo", mixinStandardHelpOptions = true,
        description = {"Sends every frame it receives back to its sender, unchanged: the other end of 'wirespeed ping'. "
                + "Each connection gets its own thread; output is flushed whenever no whole input is left buffered.",
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
            chosenIdle = idle == null ? Idle.SPIN : Idle.byName(idle);
            if (idle != null && !spin) {
                throw new IllegalArgumentException("--idle " + idle + " needs --spin");
            }
            address = listen.address(transport, DEFAULT_PORT);
        } catch (IllegalArgumentException e) {
            err.println("wirespeed echo: " + e.getMessage());
            return ExitCode.USAGE;
        }
        AtomicLong connections = new AtomicLong();
        IdleStrategy idleStrategy = chosenIdle.strategy();
        try (Sockets.Listener listener = Sockets.listen(address, nativeSocket, spin)) {
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

    /** Echoes one connection until it ends; a connection that breaks the wire format is closed and named. */
    static void echo(ByteChannel connection, int maxFrame, IdleStrategy idle, PrintWriter err) {
        try (connection) {
            FrameReader reader = FrameReader.builder(connection).maxFrameLength(maxFrame).idleStrategy(idle).build();
            FrameWriter writer = FrameWriter.builder(connection).bufferCapacity(64 * 1024).maxFrameLength(maxFrame)
                    .idleStrategy(idle).build();
            FrameHandler back = writer::writeFrame;
            while (reader.readFrames(back, Integer.MAX_VALUE) > 0) {
                if (reader.available() == 0) {
                    writer.flush(); // nothing left to batch with: the next read may block
                }
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
}
