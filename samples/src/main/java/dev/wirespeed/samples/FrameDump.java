package dev.wirespeed.samples;

import dev.wirespeed.frame.CorruptFrameException;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameTooLongException;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.io.StandardChannels;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;

/**
 * Prints the frames of a file or of standard input, one line each: its type, length and first
 * bytes. The reader hands each body over as a view of its buffer, so a stream of any length is read
 * in one buffer, with no allocation per frame but what the printing does.
 *
 * <pre>
 * FrameDump [FILE]
 * ./wirespeed server --transport stdout --count 3 | java ... dev.wirespeed.samples.FrameDump
 * </pre>
 *
 * Input that breaks the wire format ends the dump with the reader's error, which names the stream
 * offset of the bad frame ({@code xxd -s OFFSET} shows it), and exit status 3.
 */
public final class FrameDump {
    /** The exit status when the input is not a clean stream of frames. */
    static final int BAD_INPUT = 3;
    /** How many bytes of each body are shown. */
    private static final int SHOWN = 16;

    private FrameDump() {
    }

    /**
     * Dumps the frames of {@code FILE}, or of standard input.
     *
     * @param args {@code [FILE]}
     * @throws IOException if the input cannot be read
     */
    public static void main(String[] args) throws IOException {
        ReadableByteChannel in = args.length > 0 ? FileChannel.open(Path.of(args[0])) : StandardChannels.stdin();
        int status = dump(in, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Dumps the frames of {@code in} on {@code out}, the error on {@code err}, and returns the exit status. */
    static int dump(ReadableByteChannel in, PrintStream out, PrintStream err) throws IOException {
        StringBuilder line = new StringBuilder();
        FrameReader reader = FrameReader.builder(in).maxFrameLength(1 << 20).build();
        try (reader) {
            // readFrames hands over every frame already buffered per call, reading the channel only for
            // the first; the body is valid until the handler returns.
            long frames = reader.readFrames((type, body) -> {
                line.setLength(0);
                line.append("frame type=").append(type).append(" length=").append(body.remaining());
                for (int i = 0; i < Math.min(SHOWN, body.remaining()); i++) {
                    line.append(i == 0 ? " body=" : " ").append(String.format("%02x", body.get(body.position() + i)));
                }
                out.println(line.append(body.remaining() > SHOWN ? " ..." : ""));
            });
            out.println(frames + " frames, " + reader.offset() + " bytes");
            return 0;
        } catch (CorruptFrameException | FrameTooLongException | TruncatedFrameException e) {
            // The protocol's three errors name every value and the offset of the bad frame; the frames
            // before it were printed. Any other IOException is the channel's, and goes to the caller.
            err.println("frame-dump: " + e.getMessage() + " (after " + reader.frameCount() + " frames)");
            return BAD_INPUT;
        }
    }
}
