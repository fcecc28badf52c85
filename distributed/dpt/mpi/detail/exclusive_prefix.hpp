// dpt/mpi/detail/exclusive_prefix.hpp — MPI_Exscan of one summary per rank under any associative operator.
//
// Rank r gets summary_0 ⊕ … ⊕ summary_{r−1}, combined in rank order (MPI applies a non-commutative operator in
// rank order), or an absent summary on rank 0 and wherever every rank before holds nothing. A summary is a
// trivially copyable struct with a `present` member; it travels as bytes, and the operator runs on the host.
#pragma once

#include <cstring>
#include <mpi.h>
#include <type_traits>

#include <dpt/mpi/communicator.hpp>

namespace dpt::mpi::detail {

// The value a rank's slice reduces to, if it has one (an empty slice has none: the operator need have no identity).
template <class T>
struct partial {
  T value{};
  int present = 0;
};

// Absent summaries are skipped; present ones combine by `op`, lower ranks on the left.
template <class AssociativeOp>
struct combine_partials {
  AssociativeOp op;
  template <class T>
  partial<T> operator()(const partial<T>& lower, const partial<T>& upper) const {
    if (!lower.present) return upper;
    if (!upper.present) return lower;
    return {op(lower.value, upper.value), 1};
  }
};

// MPI's user operator for Summary under Combine: inout[i] = in[i] ⊕ inout[i], `in` from the lower ranks. MPI takes
// a plain function, so the combiner of the call in progress is reached through a static pointer (only the thread
// that called MPI_Init_thread calls MPI: MPI_THREAD_FUNNELED).
template <class Summary, class Combine>
struct mpi_operator {
  static inline const Combine* combine = nullptr;
  static void apply(void* in, void* inout, int* count, MPI_Datatype*) {
    for (int i = 0; i < *count; ++i) {
      Summary lower, upper;
      std::memcpy(&lower, static_cast<const char*>(in) + i * sizeof(Summary), sizeof(Summary));
      std::memcpy(&upper, static_cast<const char*>(inout) + i * sizeof(Summary), sizeof(Summary));
      const Summary combined = (*combine)(lower, upper);
      std::memcpy(static_cast<char*>(inout) + i * sizeof(Summary), &combined, sizeof(Summary));
    }
  }
};

// The bytes of a Summary as one MPI datatype, and the operator, freed when the call ends (however it ends).
struct summary_type {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  ~summary_type() {
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
    if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  }
};

template <class Summary, class Combine>
Summary exclusive_prefix(const communicator& comm, const Summary& mine, const Combine& combine) {
  static_assert(std::is_trivially_copyable_v<Summary>, "summaries travel as bytes");
  using operator_for = mpi_operator<Summary, Combine>;
  summary_type mpi;
  check(MPI_Type_contiguous(static_cast<int>(sizeof(Summary)), MPI_BYTE, &mpi.type), "MPI_Type_contiguous");
  check(MPI_Type_commit(&mpi.type), "MPI_Type_commit");
  check(MPI_Op_create(&operator_for::apply, /*commute=*/0, &mpi.op), "MPI_Op_create");
  operator_for::combine = &combine;
  Summary before{};
  const int code = MPI_Exscan(&mine, &before, 1, mpi.type, mpi.op, comm.get());
  operator_for::combine = nullptr;
  check(code, "MPI_Exscan");
  return comm.rank() == 0 ? Summary{} : before;  // MPI leaves rank 0's result undefined
}

}  // namespace dpt::mpi::detail
