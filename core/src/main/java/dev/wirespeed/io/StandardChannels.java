package dev.wirespeed.io;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.nio.channels.FileChannel;

/**
 * The process's standard input and output as channels, through public API only (never by reopening
 * {@code /proc/self/fd}), so that they work on every platform and with pipes, files and terminals.
 *
 * <p>Each call returns a new channel over the same descriptor. Closing it closes the descriptor for
 * the whole process. Position-based operations ({@code position}, {@code size}) fail on a pipe.
 *
 * <p>Thread safety: the methods may be called from any thread; the channels are as thread-safe as
 * {@link FileChannel}.
 */
public final class StandardChannels {
    private StandardChannels() {
    }

    /** {@return a new channel reading file descriptor 0, standard input} */
    public static FileChannel stdin() {
        return new FileInputStream(FileDescriptor.in).getChannel();
    }

    /** {@return a new channel writing file descriptor 1, standard output} */
    public static FileChannel stdout() {
        return new FileOutputStream(FileDescriptor.out).getChannel();
    }
}
