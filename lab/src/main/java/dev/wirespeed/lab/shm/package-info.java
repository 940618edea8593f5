/**
 * The lab's shared-memory peers, each behind one pair of interfaces: the library's {@code SharedRing},
 * Agrona's {@code OneToOneRingBuffer} over a mapped file and Aeron's IPC with an embedded media driver;
 * and the loops the {@code ring-*} commands run over any of them (a ping-pong's two ends, a writer and
 * a reader of the sequence stream, and a reader that reports its wake-ups after idle periods).
 */
package dev.wirespeed.lab.shm;
