#include "store/candidatetable.h"

namespace {
using C = CandidateTable::Column;
constexpr CandidateTable::Columns list({{{C::Id, "id"},
                                         {C::SessionId, "session_id"},
                                         {C::Iteration, "iteration"},
                                         {C::ParentId, "parent_id"},
                                         {C::PlanId, "plan_id"},
                                         {C::PlanIndex, "plan_index"},
                                         {C::SampleIndex, "sample_index"},
                                         {C::FixRound, "fix_round"},
                                         {C::Origin, "origin"},
                                         {C::Source, "source"},
                                         {C::SourceHash, "source_hash"}}});
static_assert(list.inOrder());
} // namespace

const CandidateTable::Columns &CandidateTable::columns()
{
    return list;
}

Candidate CandidateTable::read(const Statement &q, int first)
{
    const ColumnRow<C> row(q, first);
    Candidate c;
    c.id = row.text(C::Id);
    c.sessionId = row.text(C::SessionId);
    c.iteration = row.integer(C::Iteration);
    c.parentId = row.text(C::ParentId);
    c.planId = row.text(C::PlanId);
    c.planIndex = row.integer(C::PlanIndex);
    c.sampleIndex = row.integer(C::SampleIndex);
    c.fixRound = row.integer(C::FixRound);
    Candidate::originFromName(row.text(C::Origin), c.origin);
    c.source = row.text(C::Source);
    c.sourceHash = row.text(C::SourceHash);
    return c;
}

void CandidateTable::bind(Statement &q, const Candidate &c)
{
    q.bind(list.placeholder(C::Id), c.id)
        .bind(list.placeholder(C::SessionId), c.sessionId)
        .bind(list.placeholder(C::Iteration), c.iteration)
        .bind(list.placeholder(C::ParentId), Statement::orNull(c.parentId))
        .bind(list.placeholder(C::PlanId), Statement::orNull(c.planId))
        .bind(list.placeholder(C::PlanIndex), c.planIndex)
        .bind(list.placeholder(C::SampleIndex), c.sampleIndex)
        .bind(list.placeholder(C::FixRound), c.fixRound)
        .bind(list.placeholder(C::Origin), Candidate::originName(c.origin))
        .bind(list.placeholder(C::Source), c.source)
        .bind(list.placeholder(C::SourceHash), c.sourceHash);
}
