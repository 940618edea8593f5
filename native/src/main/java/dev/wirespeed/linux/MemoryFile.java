package dev.wirespeed.linux;

import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * A file in memory with no name in any file system ({@code memfd_create(2)}): only the processes its
 * descriptor is handed to can open or map it, and it is gone once the last descriptor and mapping of it
 * are. The home of a shared ring that no other process should find: make the ring in it ({@code
 * SharedRing.create(file.channel(), capacity)}, or {@code ManyToOneRing}'s), {@link #sealSize() seal its
 * size}, and hand it over a Unix socket ({@link NativeSocket#sendMemoryFile}); the other side receives it
 * ({@link NativeSocket#receiveMemoryFile}), which checks its seals, and opens the ring in its {@link
 * #channel()}:
 *
 * <pre>{@code
 * // the process that makes the ring                the process it is handed to
 * try (MemoryFile file = MemoryFile.create("orders")) {  try (MemoryFile file = socket.receiveMemoryFile()) {
 *     ring = SharedRing.create(file.channel(), 1 << 20);      ring = SharedRing.open(file.channel());
 *     file.sealSize();                                   } // the ring's mapping keeps the file
 *     socket.sendMemoryFile(file);
 * }
 * }</pre>
 *
 * <h2>Seals</h2>
 * A file made here allows seals and is sealed against execution where the kernel can (Linux 6.3's {@code
 * MFD_NOEXEC_SEAL}). {@link #sealSize()} adds {@code F_SEAL_SHRINK}, {@code F_SEAL_GROW} and {@code
 * F_SEAL_SEAL}: from then on no process that has the file, the one that made it included, can make it
 * shorter or longer ({@code ftruncate} and a write past its end fail with {@code EPERM}) or add a seal.
 * That is what makes mapping a file from another process safe: a file cut shorter under a mapping kills
 * the process that touches the bytes cut ({@code SIGBUS}), and a sealed file's size, once checked, holds.
 * Its bytes stay writable: the ring's ends write them.
 *
 * <h2>Ownership</h2>
 * A memory file owns its descriptor, close-on-exec, and the {@link #channel()} it opens; {@link #close()}
 * closes both. A ring mapped from the channel keeps the file's memory until the ring is closed, however
 * soon the memory file is.
 *
 * <p>Thread safety: {@link #close()} must not race with another call; else safe for any thread.
 *
 * <p>Linux only: elsewhere {@link #create} throws {@link UnsupportedOperationException}.
 */
public final class MemoryFile implements Closeable {
    /** The longest name {@code memfd_create} takes, in bytes of UTF-8: 249. */
    public static final int MAX_NAME_BYTES = 249;
    /** The seals that fix a file's size. */
    private static final int SIZE_SEALS = Flags.F_SEAL_SHRINK | Flags.F_SEAL_GROW;

    /** The descriptor: 0 and up while open. */
    private final int fd;
    /** What messages call the file: its name as {@code /proc/self/fd} shows it. */
    private final String name;
    /** The channel on the file, opened on the first {@link #channel()}; null until then. */
    private FileChannel channel;
    private boolean closed;

    private MemoryFile(int fd, String name) {
        this.fd = fd;
        this.name = name;
    }

    /**
     * Makes a memory file, empty, close-on-exec, that allows seals and (where the kernel can) is sealed
     * against execution.
     *
     * @param name a name for people: {@code /proc/<pid>/fd} shows {@code /memfd:<name> (deleted)}; several
     *     files may have one name
     * @return the file, 0 bytes long
     * @throws IllegalArgumentException if {@code name} is longer than {@value #MAX_NAME_BYTES} bytes of
     *     UTF-8, or holds a NUL character, naming it
     * @throws NativeIoException if {@code memfd_create} fails ({@code EMFILE}, say), naming the name
     * @throws UnsupportedOperationException off Linux
     */
    public static MemoryFile create(String name) throws IOException {
        Objects.requireNonNull(name, "name");
        LibC.checkSupported();
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_BYTES || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a memory file's name must be at most " + MAX_NAME_BYTES
                    + " bytes of UTF-8 with no NUL; name=\"" + name + "\" has " + bytes.length + " bytes");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cName = arena.allocateFrom(name);
            MemorySegment capture = Syscalls.capture(arena);
            int flags = Flags.MFD_CLOEXEC | Flags.MFD_ALLOW_SEALING;
            long rc = Syscalls.call(capture, SyscallNumbers.MEMFD_CREATE, cName.address(),
                    flags | Flags.MFD_NOEXEC_SEAL, 0, 0, 0, 0);
            if (rc == -Errno.EINVAL) { // a kernel before 6.3, which does not know MFD_NOEXEC_SEAL
                rc = Syscalls.call(capture, SyscallNumbers.MEMFD_CREATE, cName.address(), flags, 0, 0, 0, 0);
            }
            if (rc < 0) {
                throw new NativeIoException("memfd_create", (int) -rc, "name=\"" + name + "\" flags=0x"
                        + Integer.toHexString(flags));
            }
            return new MemoryFile((int) rc, "memfd:" + name);
        }
    }

    /**
     * Takes {@code fd}, received from another process, for a memory file whose size is sealed.
     *
     * @throws IOException if it is not a memory file (it takes no seals), or its size is not sealed, naming
     *     its seals; {@code fd} is closed then
     */
    static MemoryFile received(int fd) throws IOException {
        Sys.Result seals = Sys.fcntl(fd, Flags.F_GET_SEALS, 0);
        String name = linkName(fd);
        if (seals.rc() < 0 || (seals.rc() & SIZE_SEALS) != SIZE_SEALS) {
            Sys.closeQuietly(fd);
            if (seals.rc() < 0) {
                throw new IOException("the descriptor received is not a memory file: fcntl(F_GET_SEALS) failed: errno="
                        + seals.errno() + " (" + Errno.strerror(seals.errno()) + ") fd=" + fd + "; it was closed");
            }
            throw new IOException("the memory file received is not sealed against shrinking and growing: seals="
                    + describeSeals(seals.rc()) + ", wanted F_SEAL_SHRINK|F_SEAL_GROW; fd=" + fd + " was closed");
        }
        return new MemoryFile(fd, name);
    }

    /** {@return the descriptor} Valid until {@link #close()}; do not close it behind this object's back. */
    public int fd() {
        return fd;
    }

    /**
     * {@return a channel that reads and writes the file}: the same one at every call, opened on the first
     * (through {@code /proc/self/fd}, a second descriptor on the same file) and closed by {@link #close()}
     *
     * @throws ClosedChannelException if this file is closed
     * @throws IOException if the channel cannot be opened ({@code /proc} not mounted, say)
     */
    public synchronized FileChannel channel() throws IOException {
        ensureOpen();
        if (channel == null) {
            channel = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        }
        return channel;
    }

    /**
     * {@return the file's bytes}
     *
     * @throws IOException as {@link #channel()}
     */
    public long size() throws IOException {
        return channel().size();
    }

    /**
     * Seals the file's size as it is ({@code F_SEAL_SHRINK}, {@code F_SEAL_GROW}) and its seals ({@code
     * F_SEAL_SEAL}): no process can make it shorter or longer, nor add a seal, from now on.
     *
     * @throws ClosedChannelException if this file is closed
     * @throws NativeIoException if {@code fcntl(F_ADD_SEALS)} fails: {@code EPERM} where the file's seals
     *     were sealed already without these
     */
    public synchronized void sealSize() throws IOException {
        ensureOpen();
        Sys.check(Sys.fcntl(fd, Flags.F_ADD_SEALS, SIZE_SEALS | Flags.F_SEAL_SEAL), "fcntl",
                "cmd=F_ADD_SEALS seals=F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL " + this);
    }

    /**
     * {@return whether the file's size is sealed: {@code F_SEAL_SHRINK} and {@code F_SEAL_GROW} both set}
     *
     * @throws ClosedChannelException if this file is closed
     * @throws NativeIoException if {@code fcntl(F_GET_SEALS)} fails
     */
    public synchronized boolean isSizeSealed() throws IOException {
        ensureOpen();
        int seals = Sys.check(Sys.fcntl(fd, Flags.F_GET_SEALS, 0), "fcntl", "cmd=F_GET_SEALS " + this);
        return (seals & SIZE_SEALS) == SIZE_SEALS;
    }

    /**
     * Closes the channel, if opened, and the descriptor; a ring mapped from the file keeps its memory until
     * the ring is closed. Closing twice does nothing.
     *
     * @throws IOException if either close fails
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (channel != null) {
                channel.close();
            }
        } finally {
            Sys.close(fd);
        }
    }

    @Override
    public String toString() {
        return "MemoryFile[" + name + " fd=" + fd + (closed ? " closed" : "") + "]";
    }

    private void ensureOpen() throws ClosedChannelException {
        if (closed) {
            throw new ClosedChannelException();
        }
    }

    /** {@return the name {@code /proc/self/fd} shows for {@code fd}, {@code memfd:orders} for a memory file} */
    private static String linkName(int fd) {
        try {
            String link = java.nio.file.Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            link = link.startsWith("/") ? link.substring(1) : link;
            return link.endsWith(" (deleted)") ? link.substring(0, link.length() - " (deleted)".length()) : link;
        } catch (IOException | UnsupportedOperationException e) {
            return "a file received"; // only for messages
        }
    }

    /** {@return {@code seals} by their names, as {@code F_SEAL_SEAL|F_SEAL_GROW}, or {@code none}} */
    private static String describeSeals(int seals) {
        String[] names = {"F_SEAL_SEAL", "F_SEAL_SHRINK", "F_SEAL_GROW", "F_SEAL_WRITE", "F_SEAL_FUTURE_WRITE",
            "F_SEAL_EXEC"};
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            if ((seals & 1 << i) != 0) {
                b.append(b.isEmpty() ? "" : "|").append(names[i]);
            }
        }
        return b.isEmpty() ? "none" : b.toString();
    }
}
