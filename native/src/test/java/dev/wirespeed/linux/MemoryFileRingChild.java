package dev.wirespeed.linux;

import dev.wirespeed.shm.ManyToOneRing;
import dev.wirespeed.shm.ManyToOneWriter;
import dev.wirespeed.shm.RingWriter;
import dev.wirespeed.shm.SharedRing;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A child process for {@link MemoryFileRingTest}: connects to the Unix socket its first argument names,
 * receives a memory file, checks that it cannot grow it, opens the ring of the kind its second argument
 * names ({@code one-to-one} or {@code many-to-one}) from the file's channel, closes the file (the ring's
 * mapping keeps it) and writes its third argument's count of frames, frame {@code i} of type {@code i}
 * with {@code i % 300} bytes, each {@code i + j}, waiting while the ring is full; then closes the ring.
 * Exits 3, saying why, where the file grew.
 */
public final class MemoryFileRingChild {
    private MemoryFileRingChild() {
    }

    /** Writes the frames. @param args the socket's path, the ring's kind and the count of frames */
    public static void main(String[] args) throws Exception {
        String kind = args[1];
        int frames = Integer.parseInt(args[2]);
        try (NativeSocket socket = NativeSocket.connect(UnixDomainSocketAddress.of(Path.of(args[0])))) {
            AutoCloseable ring;
            Writer writer;
            try (MemoryFile file = socket.receiveMemoryFile()) {
                FileChannel channel = file.channel();
                long size = channel.size();
                try {
                    channel.write(ByteBuffer.allocate(1), size);
                    System.out.println("the received file grew from size=" + size + " to " + channel.size());
                    System.exit(3);
                } catch (IOException expected) {
                    System.out.println("growing the received file failed as it should: " + expected.getMessage());
                }
                if (kind.equals("one-to-one")) {
                    SharedRing one = SharedRing.open(channel);
                    RingWriter w = one.writer();
                    ring = one;
                    writer = w::offer;
                } else {
                    ManyToOneRing many = ManyToOneRing.open(channel);
                    ManyToOneWriter w = many.writer();
                    ring = many;
                    writer = w::offer;
                }
            }
            try (ring) {
                ByteBuffer body = ByteBuffer.allocate(300);
                for (int i = 0; i < frames; i++) {
                    int length = i % 300;
                    body.clear().limit(length);
                    for (int j = 0; j < length; j++) {
                        body.put(j, (byte) (i + j));
                    }
                    while (!writer.offer(i, body)) {
                        Thread.onSpinWait();
                    }
                }
            }
        }
    }

    /** Either kind's writer's offer. */
    private interface Writer {
        boolean offer(int type, ByteBuffer body);
    }
}
