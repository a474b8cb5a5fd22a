! Fortran I/O with a known pattern (libgfortran's own open/read/write
! calls beneath), for the Fortran tests. argv(1): the data directory.
!   stream.bin  unformatted stream: one write of 1000 real(8) (8000 bytes),
!               closed; reopened read-only: one read of them back, closed.
!   text.txt    formatted sequential: 10 lines "line NN" (80 bytes), closed.
! Exits 1 if what was read back differs from what was written.
program fortran_io
    implicit none
    character(len=4096) :: dir
    real(8) :: a(1000), b(1000)
    integer :: u, i

    call get_command_argument(1, dir)
    do i = 1, 1000
        a(i) = i
    end do
    open (newunit=u, file=trim(dir)//'/stream.bin', access='stream', form='unformatted', &
          status='replace', action='write')
    write (u) a
    close (u)
    open (newunit=u, file=trim(dir)//'/stream.bin', access='stream', form='unformatted', &
          status='old', action='read')
    read (u) b
    close (u)
    if (any(a /= b)) stop 1
    open (newunit=u, file=trim(dir)//'/text.txt', form='formatted', status='replace', action='write')
    do i = 1, 10
        write (u, '(A,I2.2)') 'line ', i
    end do
    close (u)
end program fortran_io
