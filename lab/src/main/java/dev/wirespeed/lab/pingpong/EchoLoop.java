package dev.wirespeed.lab.pingpong;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.ByteChannel;

/** The echo of one connection on a thread of its own: every frame sent back, unchanged. */
public final class EchoLoop {
    /** Reads of {@link #echoSome} per call; see {@link #echo}. */
    static final int BATCH = 64;

    private EchoLoop() {
    }

    /**
     * Echoes one connection until it ends; a connection that breaks the wire format is closed and named.
     *
     * <p>The reads are made {@value #BATCH} at a time by one method, so that the JIT compiles that
     * method by its calls, early, and the loop around it, which the JVM compiles only by on-stack
     * replacement after tens of thousands of iterations, runs once per batch: its compilation, which
     * would take the CPU from a ping sharing it in the middle of a measurement, comes after millions
     * of round trips, if ever.
     *
     * @param connection the connection, closed on return
     * @param maxFrame the largest body accepted
     * @param idle what the reader and writer do between empty calls of a non-blocking connection
     * @param err where a broken connection is named
     */
    public static void echo(ByteChannel connection, int maxFrame, IdleStrategy idle, PrintWriter err) {
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
