package dev.wirespeed.lab.pingpong;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.testkit.SequenceStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * The peer that warms an echo up before it listens: {@code connections} connections one after
 * another, each making {@code roundTrips} round trips of {@value #SIZE}-byte frames of the sequence
 * stream and then closing. Several connections, because the end of each stream takes a branch the
 * JIT may have compiled as a trap, and the code is then recompiled during the next connection: the
 * priming's own, not a measured peer's.
 *
 * <p>It reads and writes its socket directly, without the library's reader and writer, so that the
 * profile the JIT compiles the echo from is the echo's alone. Every echo is checked byte for byte.
 */
public final class Primer {
    /** Body bytes of a priming frame: the lab's latency size. */
    public static final int SIZE = 100;

    /** Priming connections: the end of each of the first two can trap where the one before did not reach. */
    public static final int CONNECTIONS = 3;

    private final Thread thread;
    private volatile IOException failure;

    private Primer(SocketAddress address, long roundTrips, int connections) {
        this.thread = Thread.ofPlatform().daemon().name("echo-primer").unstarted(() -> {
            SocketAddress target = target(address);
            int connected = 0;
            try {
                for (int c = 0; c < connections; c++) {
                    try (SocketChannel channel = SocketChannel.open(target)) {
                        connected++;
                        primeOnce(channel, roundTrips);
                    }
                }
            } catch (IOException e) {
                failure = e;
                // The echo accepts every priming connection before it listens: give it the rest, empty.
                for (; connected < connections; connected++) {
                    try {
                        SocketChannel.open(target).close();
                    } catch (IOException ignored) {
                        // the failure already says what went wrong
                    }
                }
            }
        });
    }

    /**
     * {@return a primer already connecting to {@code address}}
     *
     * @param address the echo's address
     * @param roundTrips round trips per connection
     * @param connections connections, one after another
     */
    public static Primer start(SocketAddress address, long roundTrips, int connections) {
        Primer primer = new Primer(address, roundTrips, connections);
        primer.thread.start();
        return primer;
    }

    /**
     * Waits for the last connection to close.
     *
     * @throws IOException if an echo failed or differed
     */
    public void await() throws IOException {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while priming", e);
        }
        if (failure != null) {
            throw new IOException("priming failed: " + failure.getMessage(), failure);
        }
    }

    /** {@return where to connect to reach {@code address}}: loopback for a wildcard bind */
    private static SocketAddress target(SocketAddress address) {
        return address instanceof InetSocketAddress inet && inet.getAddress().isAnyLocalAddress()
                ? new InetSocketAddress("127.0.0.1", inet.getPort()) : address;
    }

    private static void primeOnce(SocketChannel channel, long roundTrips) throws IOException {
        byte[] pattern = SequenceStream.pattern(SIZE);
        int frame = FrameFormat.HEADER_LENGTH + SIZE;
        ByteBuffer out = ByteBuffer.allocateDirect(frame);
        ByteBuffer in = ByteBuffer.allocateDirect(frame);
        byte[] sent = new byte[frame];
        byte[] received = new byte[frame];
        if (channel.getRemoteAddress() instanceof InetSocketAddress) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        }
        for (long i = 0; i < roundTrips; i++) {
            out.clear();
            out.putInt(SequenceStream.type(i)).putInt(SIZE).put(pattern, SequenceStream.patternOffset(i), SIZE).flip();
            out.get(0, sent);
            while (out.hasRemaining()) {
                channel.write(out);
            }
            in.clear();
            while (in.hasRemaining()) {
                if (channel.read(in) < 0) {
                    throw new EOFException("the echo closed the priming connection after " + i + " round trips");
                }
            }
            in.get(0, received);
            if (!Arrays.equals(sent, received)) {
                throw new IOException("echo " + i + " of the priming connection differs from the frame sent: first "
                        + "byte differing at " + Arrays.mismatch(sent, received) + " of " + frame);
            }
        }
    }
}
