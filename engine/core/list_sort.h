#pragma once
// list_sort as Slurm's queue gets it: list.c's list_sort copies the list into an array and calls
// qsort(), which glibc (2.36, Debian 12) runs as its merge sort (msort.c: sort the first n/2 and
// the remaining elements, then merge, taking the left element unless the comparison says the
// right one goes first). With a comparator that is not a strict weak order (sort_job_queue2's
// preemption test) std::sort is undefined; this gives the order slurmctld gets.
#include <cstddef>
#include <vector>

namespace sa::engine {

namespace detail {

template <class T, class Before>
void merge_sort_into(T* v, T* tmp, std::size_t n, Before& before) {
  if (n <= 1) return;
  const std::size_t n1 = n / 2, n2 = n - n1;
  T* b1 = v;
  T* b2 = v + n1;
  merge_sort_into(b1, tmp, n1, before);
  merge_sort_into(b2, tmp, n2, before);
  std::size_t i = 0, j = 0, k = 0;
  while (i < n1 && j < n2) tmp[k++] = before(b2[j], b1[i]) ? b2[j++] : b1[i++];
  while (i < n1) tmp[k++] = b1[i++];
  // The rest of b2 is already in place.
  for (std::size_t x = 0; x < k; ++x) v[x] = tmp[x];
}

}  // namespace detail

/// Sorts `v` as glibc's qsort merge sort does with a comparator whose "second goes first"
/// answer is `before(second, first)`.
template <class T, class Before>
void slurm_list_sort(std::vector<T>& v, Before before) {
  std::vector<T> tmp(v.size());
  detail::merge_sort_into(v.data(), tmp.data(), v.size(), before);
}

}  // namespace sa::engine
