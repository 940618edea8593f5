package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.server.SizeRange;
import dev.wirespeed.linux.Futex;
import dev.wirespeed.shm.RingSleep;
import dev.wirespeed.shm.RingWriter;
import dev.wirespeed.shm.SharedRing;
import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code wirespeed ring-write}: the sequence stream into a shared ring, for {@code ring-read}. */
@Command(name = "ring-write", mixinStandardHelpOptions = true,
        description = {"Makes a shared ring (a file under /dev/shm, memory, which another process maps) and writes "
                + "the sequence stream into it (frames 0, 1, 2, ...), waiting while the ring is full: the other end "
                + "of 'wirespeed ring-read'. Ends after --count frames, closing its end (the reader then reads to "
                + "the last frame and ends), or when the reader goes away.",
            "Prints 'ring at PATH' on standard error once the ring is made. docs/shared-ring.md has its layout."})
public final class RingWriteCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public RingWriteCommand() {
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--path", defaultValue = "/dev/shm/wirespeed.ring", description = "the ring's file, made "
            + "anew (default ${DEFAULT-VALUE})")
    Path path;

    @Option(names = "--replace", description = "delete a file already at --path first (a ring left by a writer "
            + "that died)")
    boolean replace;

    @Option(names = "--capacity", defaultValue = "1048576", description = "bytes of frames the ring holds: a power "
            + "of two from 4096 to 1073741824 (default ${DEFAULT-VALUE})")
    int capacity;

    @Option(names = "--size", defaultValue = "100", converter = ServerCommand.SizeConverter.class,
            description = "body size N or MIN-MAX (default ${DEFAULT-VALUE})")
    SizeRange size = SizeRange.parse("100");

    @Option(names = "--count", description = "frames to write (default: endless)")
    Long count;

    @Option(names = "--wake", defaultValue = "futex", description = "how the writer wakes a reader that sleeps: "
            + "futex (the reader sleeps in the kernel, 'ring-read --sleep futex') or none (it does not sleep, or "
            + "wakes by itself) (default ${DEFAULT-VALUE})")
    String wake;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (count != null && count < 0) {
            err.println("wirespeed ring-write: --count=" + count + " must be >= 0");
            return ExitCode.USAGE;
        }
        RingSleep wakes;
        try {
            wakes = switch (wake) {
                case "futex" -> Futex.create();
                case "none" -> null;
                default -> throw new IllegalArgumentException("--wake=" + wake + ": futex or none");
            };
            if (replace) {
                Files.deleteIfExists(path);
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            err.println("wirespeed ring-write: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (IOException e) {
            err.println("wirespeed ring-write: --replace: " + e);
            return ExitCode.IO_FAILURE;
        }
        try (SharedRing ring = SharedRing.create(path, capacity)) {
            RingWriter writer = wakes == null ? ring.writer() : ring.writer(wakes);
            if (size.max() > ring.maxFrameLength()) {
                err.println("wirespeed ring-write: --size " + size + " is longer than the ring's maxFrameLength="
                        + ring.maxFrameLength() + " (--capacity " + capacity + ")");
                return ExitCode.USAGE;
            }
            err.println("ring at " + path);
            err.flush();
            ByteBuffer pattern = ByteBuffer.wrap(SequenceStream.pattern(size.max()));
            SizeRange.Sizes next = size.sizes();
            long frames = count == null ? Long.MAX_VALUE : count;
            for (long i = 0; i < frames; i++) {
                int offset = SequenceStream.patternOffset(i);
                pattern.limit(offset + next.next()).position(offset);
                for (int spins = 0; !writer.offer(SequenceStream.type(i), pattern); spins++) {
                    if ((spins & 0xFFFF) == 0xFFFF && writer.readerGone()) {
                        err.println("wirespeed ring-write: the reader went away after frame " + i);
                        return ExitCode.OK;
                    }
                    Thread.onSpinWait();
                }
            }
            return ExitCode.OK;
        } catch (IllegalArgumentException e) {
            err.println("wirespeed ring-write: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (IOException | IllegalStateException e) {
            err.println("wirespeed ring-write: " + e);
            return ExitCode.IO_FAILURE;
        }
    }
}
