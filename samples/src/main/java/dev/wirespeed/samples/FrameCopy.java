package dev.wirespeed.samples;

import dev.wirespeed.frame.CorruptFrameException;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameTooLongException;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.io.StandardChannels;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Copies the frames of a file or of standard input to a file or to standard output, checking every
 * frame and changing none: a recorder, or one hop of a relay. The frames move a block at a time, as
 * many as each read brought, each length checked on the way in, with one call and one copy a block.
 *
 * <pre>
 * FrameCopy [IN [OUT]]
 * ./wirespeed server --transport stdout --count 1000000 | java ... dev.wirespeed.samples.FrameCopy - capture.bin
 * </pre>
 *
 * {@code -}, or no argument, is standard input or output. Input that breaks the wire format ends the
 * copy with the reader's error, which names the stream offset of the bad frame, and exit status 3; the
 * frames before it were copied.
 */
public final class FrameCopy {
    /** The exit status when the input is not a clean stream of frames. */
    static final int BAD_INPUT = 3;

    private FrameCopy() {
    }

    /**
     * Copies the frames of {@code IN} to {@code OUT}, each standard input or output if absent or {@code -}.
     *
     * @param args {@code [IN [OUT]]}
     * @throws IOException if the input cannot be read or the output written
     */
    public static void main(String[] args) throws IOException {
        ReadableByteChannel in = args.length > 0 && !args[0].equals("-") ? FileChannel.open(Path.of(args[0]))
                : StandardChannels.stdin();
        WritableByteChannel out = args.length > 1 && !args[1].equals("-") ? FileChannel.open(Path.of(args[1]),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)
                : StandardChannels.stdout();
        int status = copy(in, out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Copies the frames of {@code in} to {@code out}, closing both; says what it copied, or why it
     * stopped, on {@code err}; returns the exit status.
     */
    static int copy(ReadableByteChannel in, WritableByteChannel out, PrintStream err) throws IOException {
        FrameReader reader = new FrameReader(in);
        FrameWriter writer = new FrameWriter(out);
        try (reader; writer) {
            // relayBlock takes every whole frame buffered, each length checked as it was read, and
            // gives them to the writer as they are, in one piece, without checking them again.
            while (reader.relayBlock(writer) > 0) {
                if (reader.available() == 0) {
                    writer.flush(); // nothing left buffered: the next read may wait for the input
                }
            }
        } catch (CorruptFrameException | FrameTooLongException | TruncatedFrameException e) {
            // The writer was closed, so flushed, before this: the frames before the bad one are out.
            err.println("frame-copy: " + e.getMessage() + " (after " + reader.frameCount() + " frames, copied)");
            return BAD_INPUT;
        }
        err.println("frame-copy: " + writer.frameCount() + " frames, " + writer.offset() + " bytes");
        return 0;
    }
}
