package dev.wirespeed.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.function.IntUnaryOperator;

/**
 * A channel over fixed bytes whose reads (or writes) take as many bytes as a script says: the
 * adversarial channels of the contract tests. The script is called with the number of the call (from
 * 0) and returns how many bytes that call may move at most; 0 means "none this time", as a
 * non-blocking channel would.
 */
public final class ScriptedChannel implements ReadableByteChannel, WritableByteChannel {
    private final byte[] data;
    private final IntUnaryOperator script;
    private final String name;
    private int position;
    private int calls;
    private boolean open = true;
    private final java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();

    private ScriptedChannel(byte[] data, IntUnaryOperator script, String name) {
        this.data = data;
        this.script = script;
        this.name = name;
    }

    /** Reads or writes with no limit beyond the buffer offered. */
    public static ScriptedChannel whole(byte[] data) {
        return new ScriptedChannel(data, call -> Integer.MAX_VALUE, "whole");
    }

    /** One byte per call. */
    public static ScriptedChannel oneByteAtATime(byte[] data) {
        return new ScriptedChannel(data, call -> 1, "one-byte");
    }

    /** Zero bytes on every other call, the rest unlimited. */
    public static ScriptedChannel zeroEveryOtherCall(byte[] data) {
        return new ScriptedChannel(data, call -> call % 2 == 0 ? 0 : Integer.MAX_VALUE, "zero-every-other");
    }

    /** The first call moves at most {@code split} bytes, the rest unlimited. */
    public static ScriptedChannel splitAt(byte[] data, int split) {
        return new ScriptedChannel(data, call -> call == 0 ? split : Integer.MAX_VALUE, "split-at-" + split);
    }

    /** Each call moves a random number of bytes, 0 to 2 * mean, from a seeded generator. */
    public static ScriptedChannel randomSplits(byte[] data, long seed, int mean) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        return new ScriptedChannel(data, call -> random.nextInt(2 * mean + 1), "random-seed-" + seed);
    }

    /**
     * Reads {@code data} as {@code script} says.
     *
     * @param data the bytes
     * @param script the most bytes call number {@code n} (from 0) may move; 0 for none this time
     * @param name for messages
     * @return the channel
     */
    public static ScriptedChannel scripted(byte[] data, IntUnaryOperator script, String name) {
        return new ScriptedChannel(data, script, name);
    }

    /** A writable channel that takes bytes per the script. */
    public static ScriptedChannel sink(IntUnaryOperator script, String name) {
        return new ScriptedChannel(new byte[0], script, name);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        if (position == data.length) {
            return -1;
        }
        int n = Math.min(Math.min(dst.remaining(), data.length - position), script.applyAsInt(calls++));
        dst.put(data, position, n);
        position += n;
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        int n = Math.min(src.remaining(), script.applyAsInt(calls++));
        byte[] chunk = new byte[n];
        src.get(chunk);
        written.write(chunk, 0, n);
        return n;
    }

    /** {@return the bytes written so far} */
    public byte[] written() {
        return written.toByteArray();
    }

    /** {@return the number of read or write calls so far} */
    public int calls() {
        return calls;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }

    @Override
    public String toString() {
        return name;
    }
}
