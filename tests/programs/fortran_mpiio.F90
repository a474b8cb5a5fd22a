! MPI-IO through the Fortran bindings, with a known pattern, for the
! Fortran tests; built with `use mpi`, or `use mpi_f08` with -DF08.
! argv(1): the data directory. Every rank:
!   shared.dat  MPI_File_open (COMM_WORLD, CREATE+WRONLY), write_at_all of
!               100 integers at rank*400, write_at of 100 integers at
!               1600+rank*400 (4 ranks), close.
!   rank_<r>.txt  Fortran formatted write of one line "rank <r>" (7 bytes).
program fortran_mpiio
#ifdef F08
    use mpi_f08
#else
    use mpi
#endif
    implicit none
    character(len=4096) :: dir
    character(len=16) :: name
#ifdef F08
    type(MPI_File) :: fh
    type(MPI_Status) :: st
#else
    integer :: fh
    integer :: st(MPI_STATUS_SIZE)
#endif
    integer :: ierr, rank, u, buf(100)
    integer(kind=MPI_OFFSET_KIND) :: off

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call get_command_argument(1, dir)
    buf = rank
    call MPI_File_open(MPI_COMM_WORLD, trim(dir)//'/shared.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, &
                       MPI_INFO_NULL, fh, ierr)
    off = rank * 400
    call MPI_File_write_at_all(fh, off, buf, 100, MPI_INTEGER, st, ierr)
    off = 1600 + rank * 400
    call MPI_File_write_at(fh, off, buf, 100, MPI_INTEGER, st, ierr)
    call MPI_File_close(fh, ierr)
    write (name, '(A,I0,A)') 'rank_', rank, '.txt'
    open (newunit=u, file=trim(dir)//'/'//trim(name), form='formatted', status='replace', action='write')
    write (u, '(A,I1)') 'rank ', rank
    close (u)
    call MPI_Finalize(ierr)
end program fortran_mpiio
