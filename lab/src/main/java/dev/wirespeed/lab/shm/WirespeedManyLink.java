package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.linux.Futex;
import dev.wirespeed.shm.ManyToOneReader;
import dev.wirespeed.shm.ManyToOneRing;
import dev.wirespeed.shm.ManyToOneWriter;
import dev.wirespeed.shm.RingSleep;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link ShmImpl#WIRESPEED} with {@link Layout#MANY_TO_ONE}: a {@link ManyToOneRing} per direction, made by the
 * reader's side; each writer takes a slot of it. Its files stay when closed.
 */
final class WirespeedManyLink implements ShmLink {
    private final Path base;
    private final boolean owner;
    private final int capacity;
    private final Sleep sleep;
    private final List<ManyToOneRing> rings = new ArrayList<>();

    WirespeedManyLink(Path base, boolean owner, int capacity, Sleep sleep) {
        if (sleep == Sleep.BACKOFF) {
            throw new IllegalArgumentException("--sleep " + sleep + " is Agrona's and Aeron's; wirespeed takes "
                    + Sleep.SPIN + ", " + Sleep.FUTEX + " or " + Sleep.POLLING);
        }
        this.base = base;
        this.owner = owner;
        this.capacity = capacity;
        this.sleep = sleep;
    }

    private ManyToOneRing ring(String name) throws IOException {
        Path file = ShmFiles.of(base, name);
        ManyToOneRing ring = owner ? ManyToOneRing.create(file, capacity) : ManyToOneRing.open(ShmFiles.await(file));
        rings.add(ring);
        return ring;
    }

    @Override
    public Outbound outbound(String name) throws IOException {
        ManyToOneRing ring = ring(name);
        ManyToOneWriter writer = sleep == Sleep.FUTEX ? ring.writer(Futex.create()) : ring.writer();
        return new Outbound() {
            @Override
            public boolean offer(int type, ByteBuffer body) {
                return writer.offer(type, body);
            }

            @Override
            public boolean readerGone() {
                return writer.readerGone();
            }

            @Override
            public void close() {
                writer.close();
                ring.close();
            }
        };
    }

    @Override
    public Inbound inbound(String name) throws IOException {
        ManyToOneRing ring = ring(name);
        ManyToOneReader reader = ring.reader();
        RingSleep sleeps = switch (sleep) {
            case FUTEX -> Futex.create();
            case POLLING -> RingSleep.polling();
            case SPIN, BACKOFF -> null;
        };
        Waits spin = sleeps == null ? new Waits(Sleep.SPIN, "wirespeed") : null;
        return new Inbound() {
            @Override
            public int poll(FrameHandler handler, int limit) throws IOException {
                return reader.read(handler, limit);
            }

            @Override
            public int await(FrameHandler handler, int limit, Duration timeout) throws IOException {
                return sleeps == null ? spin.await(this, handler, limit, timeout)
                        : reader.take(handler, limit, sleeps, timeout);
            }

            @Override
            public void close() {
                ring.close();
            }
        };
    }

    @Override
    public int maxFrameLength() {
        return rings.stream().mapToInt(ManyToOneRing::maxFrameLength).min().orElse(capacity / 2 - 8);
    }

    @Override
    public void close() {
        rings.forEach(ManyToOneRing::close);
    }
}
