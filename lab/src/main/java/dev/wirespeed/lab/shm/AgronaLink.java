package dev.wirespeed.lab.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * {@link ShmImpl#AGRONA}: Agrona's {@link OneToOneRingBuffer} ({@link Layout#ONE_TO_ONE}) or {@link
 * ManyToOneRingBuffer} ({@link Layout#MANY_TO_ONE}) over a file mapped by every process, one per direction,
 * made whole under another name and then renamed, as the shared ring's file is. A message holds the frame:
 * its type (4 bytes), then its body; a message of type {@value #END} marks a one-to-one writer's close (a
 * many-to-one writer's close marks nothing). The reader's close sets the ring's consumer heartbeat to -1,
 * which the writers read as gone. The files stay when closed.
 */
final class AgronaLink implements ShmLink {
    /** The type of the messages that carry frames: Agrona's types start at 1. */
    static final int FRAME = 1;
    /** The type of the message that marks the writer's close. */
    static final int END = 2;
    private final Path base;
    private final boolean owner;
    private final int capacity;
    private final Sleep sleep;
    private final Layout layout;
    private final List<MappedByteBuffer> mapped = new ArrayList<>();

    AgronaLink(Path base, boolean owner, int capacity, Sleep sleep, Layout layout) {
        new Waits(sleep, "agrona"); // refuses a sleep it does not take
        this.base = base;
        this.owner = owner;
        this.capacity = capacity;
        this.sleep = sleep;
        this.layout = layout;
    }

    private RingBuffer ring(AtomicBuffer buffer) {
        return layout == Layout.ONE_TO_ONE ? new OneToOneRingBuffer(buffer) : new ManyToOneRingBuffer(buffer);
    }

    private MappedByteBuffer map(String name) throws IOException {
        Path file = ShmFiles.of(base, name);
        MappedByteBuffer buffer;
        if (owner) {
            Path draft = file.resolveSibling(file.getFileName() + ".new-" + ProcessHandle.current().pid());
            buffer = IoUtil.mapNewFile(draft.toFile(), capacity + (long) RingBufferDescriptor.TRAILER_LENGTH);
            if (Files.exists(file)) {
                Files.delete(draft);
                IoUtil.unmap(buffer);
                throw new java.nio.file.FileAlreadyExistsException(file.toString());
            }
            Files.move(draft, file, StandardCopyOption.ATOMIC_MOVE);
        } else {
            buffer = IoUtil.mapExistingFile(ShmFiles.await(file).toFile(), "agrona ring " + file);
        }
        mapped.add(buffer);
        return buffer;
    }

    @Override
    public Outbound outbound(String name) throws IOException {
        RingBuffer ring = ring(new UnsafeBuffer(map(name)));
        int max = maxFrameLength();
        return new Outbound() {
            @Override
            public boolean offer(int type, ByteBuffer body) {
                int length = body.remaining();
                if (length > max) {
                    throw new IllegalArgumentException("frame body length=" + length + " is over maxFrameLength="
                            + max + " of the agrona ring " + ShmFiles.of(base, name));
                }
                int index = ring.tryClaim(FRAME, 4 + length);
                if (index < 0) {
                    return false;
                }
                MutableDirectBuffer buffer = ring.buffer();
                buffer.putInt(index, type);
                buffer.putBytes(index + 4, body, body.position(), length);
                ring.commit(index);
                body.position(body.limit());
                return true;
            }

            @Override
            public boolean readerGone() {
                return ring.consumerHeartbeatTime() == -1;
            }

            @Override
            public void close() {
                if (layout == Layout.MANY_TO_ONE) {
                    return; // the other writers write on: the reader is never told
                }
                UnsafeBuffer none = new UnsafeBuffer(new byte[0]);
                long deadline = System.nanoTime() + ShmFiles.WAIT_MILLIS * 1_000_000;
                while (!ring.write(END, none, 0, 0) && !readerGone() && System.nanoTime() - deadline < 0) {
                    Thread.yield();
                }
            }
        };
    }

    @Override
    public Inbound inbound(String name) throws IOException {
        MappedByteBuffer buffer = map(name);
        RingBuffer ring = ring(new UnsafeBuffer(buffer));
        ByteBuffer view = buffer.asReadOnlyBuffer();
        Waits waits = new Waits(sleep, "agrona");
        return new CallbackInbound(waits) {
            private final org.agrona.concurrent.MessageHandler onMessage = (type, message, index, length) -> {
                if (type == END) {
                    end();
                    return;
                }
                view.limit(index + length).position(index + 4);
                deliver(message.getInt(index), view);
            };

            @Override
            void read(int limit) {
                ring.read(onMessage, limit);
            }

            @Override
            public void close() {
                ring.consumerHeartbeatTime(-1);
            }
        };
    }

    @Override
    public int maxFrameLength() {
        // Agrona's longest message is an eighth of the ring's capacity; the type takes 4 bytes of it.
        int ring = mapped.stream().mapToInt(b -> b.capacity() - RingBufferDescriptor.TRAILER_LENGTH).min()
                .orElse(capacity);
        return ring / 8 - 4;
    }

    @Override
    public void close() {
        mapped.forEach(IoUtil::unmap);
        mapped.clear();
    }
}
