//! MPI ranks as a group of members for [`crate::distributed`] (the `mpi` feature).
//!
//! Every exchange is one `MPI_Alltoall` of the message sizes and one
//! `MPI_Alltoallv` of the messages, on `MPI_COMM_WORLD`.

use mpi::Count;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};
use tabula_solver::distributed::Exchange;

/// The ranks of `MPI_COMM_WORLD`; MPI is finalised when it is dropped.
pub struct MpiGroup {
    world: SimpleCommunicator,
    // Dropped after `world`: finalises MPI.
    _universe: Universe,
}

impl MpiGroup {
    /// Initialises MPI (a process started without `mpiexec` is a group of one);
    /// `None` when MPI cannot be initialised or already was.
    pub fn init() -> Option<MpiGroup> {
        let universe = mpi::initialize()?;
        Some(MpiGroup {
            world: universe.world(),
            _universe: universe,
        })
    }
}

/// Offsets of consecutive parts of the given sizes.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0 as Count, |at, &count| {
            let start = *at;
            *at += count;
            Some(start)
        })
        .collect()
}

impl Exchange for MpiGroup {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    /// Panics if a member's messages of one exchange exceed 2 GiB (MPI counts
    /// are `int`); the builder's rounds keep them to a few MB.
    fn exchange(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let size = self.size();
        assert_eq!(outgoing.len(), size, "one message per member");
        let fits =
            |n: usize| Count::try_from(n).expect("an exchange's messages fit MPI's int counts");
        let counts: Vec<Count> = outgoing.iter().map(|m| fits(m.len())).collect();
        fits(outgoing.iter().map(Vec::len).sum());
        let mut incoming_counts = vec![0 as Count; size];
        self.world
            .all_to_all_into(&counts[..], &mut incoming_counts[..]);
        fits(incoming_counts.iter().map(|&c| c as usize).sum());
        let send: Vec<u8> = outgoing.concat();
        let mut receive = vec![0u8; incoming_counts.iter().map(|&c| c as usize).sum()];
        {
            let send_displs = displacements(&counts);
            let receive_displs = displacements(&incoming_counts);
            let send = Partition::new(&send[..], &counts[..], &send_displs[..]);
            let mut receive =
                PartitionMut::new(&mut receive[..], &incoming_counts[..], &receive_displs[..]);
            self.world.all_to_all_varcount_into(&send, &mut receive);
        }
        let mut rest = &receive[..];
        incoming_counts
            .iter()
            .map(|&count| {
                let (message, tail) = rest.split_at(count as usize);
                rest = tail;
                message.to_vec()
            })
            .collect()
    }
}
