package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.linux.Futex;
import dev.wirespeed.shm.RingReader;
import dev.wirespeed.shm.RingSleep;
import dev.wirespeed.shm.RingWriter;
import dev.wirespeed.shm.SharedRing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@link ShmImpl#WIRESPEED}: a {@link SharedRing} per direction; its files stay when closed, for a late reader. */
final class WirespeedLink implements ShmLink {
    private final Path base;
    private final boolean owner;
    private final int capacity;
    private final Sleep sleep;
    private final List<SharedRing> rings = new ArrayList<>();

    WirespeedLink(Path base, boolean owner, int capacity, Sleep sleep) {
        if (sleep == Sleep.BACKOFF) {
            throw new IllegalArgumentException("--sleep " + sleep + " is Agrona's and Aeron's; wirespeed takes "
                    + Sleep.SPIN + ", " + Sleep.FUTEX + " or " + Sleep.POLLING);
        }
        this.base = base;
        this.owner = owner;
        this.capacity = capacity;
        this.sleep = sleep;
    }

    private SharedRing ring(String name) throws IOException {
        Path file = ShmFiles.of(base, name);
        SharedRing ring = owner ? SharedRing.create(file, capacity) : SharedRing.open(ShmFiles.await(file));
        rings.add(ring);
        return ring;
    }

    @Override
    public Outbound outbound(String name) throws IOException {
        SharedRing ring = ring(name);
        RingWriter writer = sleep == Sleep.FUTEX ? ring.writer(Futex.create()) : ring.writer();
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
                ring.close();
            }
        };
    }

    @Override
    public Inbound inbound(String name) throws IOException {
        SharedRing ring = ring(name);
        RingReader reader = ring.reader();
        RingSleep sleeps = switch (sleep) {
            case FUTEX -> Futex.create();
            case POLLING -> RingSleep.polling();
            case SPIN, BACKOFF -> null;
        };
        Waits spin = sleeps == null ? new Waits(Sleep.SPIN, "wirespeed") : null;
        return new Inbound() {
            @Override
            public int poll(FrameHandler handler, int limit) throws IOException {
                int n = reader.read(handler, limit);
                return n == 0 ? reader.take(handler, limit, RingSleep.polling(), Duration.ZERO) : n;
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
        return rings.stream().mapToInt(SharedRing::maxFrameLength).min().orElse(capacity / 2 - 8);
    }

    @Override
    public void close() {
        rings.forEach(SharedRing::close);
    }
}
