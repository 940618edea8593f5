package dev.wirespeed.lab.shm;

import dev.wirespeed.lab.CliName;

/**
 * What a reading end does while nothing comes, and so what its writer does to wake it: the {@code
 * --sleep} of the {@code ring-*} commands.
 */
public enum Sleep implements CliName {
    /**
     * Looks again at once, yielding the CPU every 8th empty look: the library's busy-poll, and the C
     * ring's; every peer.
     */
    SPIN,
    /**
     * The shared ring's reader sleeps on the futex of its header after 1,000 empty looks and its writer
     * wakes it ({@code dev.wirespeed.linux.Futex}): the library's parking; wirespeed only.
     */
    FUTEX,
    /** The shared ring's reader sleeps in steps of 50 us ({@code RingSleep.polling()}); wirespeed only. */
    POLLING,
    /**
     * Agrona's {@code BackoffIdleStrategy} (10 spins, 20 yields, then parks from 1 us doubling to 1 ms):
     * the parking of Agrona and Aeron; their writers wake nobody.
     */
    BACKOFF;

    @Override
    public String toString() {
        return cliName();
    }
}
