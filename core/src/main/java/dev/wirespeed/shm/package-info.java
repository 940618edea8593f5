/**
 * Frames between processes on one host through shared memory: a {@link dev.wirespeed.shm.SharedRing}
 * is a ring of wire-protocol frames in a mapped file (under {@code /dev/shm}, so in memory), one
 * process writing ({@link dev.wirespeed.shm.RingWriter}) and one reading ({@link
 * dev.wirespeed.shm.RingReader}), with no system call per frame and no copy on the reading side; a
 * {@link dev.wirespeed.shm.ManyToOneRing} takes writers in any number of threads and processes ({@link
 * dev.wirespeed.shm.ManyToOneWriter}, each claiming room with a compare-and-set) and one reader ({@link
 * dev.wirespeed.shm.ManyToOneReader}). Either kind may be made in a file the caller opened, and opened
 * from a channel on it: a memory file with no name, handed from process to process over a Unix socket
 * (the native module's {@code MemoryFile}). The layouts, byte by byte, are in {@code docs/shared-ring.md},
 * so that a program in another language can take any end.
 */
package dev.wirespeed.shm;
