/**
 * io_uring through FFM: {@link dev.wirespeed.linux.uring.IoUringTransport} carries
 * {@link dev.wirespeed.loop.FrameServer}'s loops, receiving into provided buffers that the loop parses
 * in place; {@link dev.wirespeed.linux.uring.IoUringSocket} is a socket read and written through a ring
 * of its own; {@link dev.wirespeed.linux.uring.IoUringSupport} says what this machine's kernel offers
 * and, where it offers nothing, why; {@link dev.wirespeed.linux.uring.IoUring} holds the options of a
 * ring.
 */
package dev.wirespeed.linux.uring;
