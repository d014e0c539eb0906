#include "store/sessiontable.h"

#include "store/sqlvalues.h"

namespace {
using C = SessionTable::Column;
constexpr SessionTable::Columns list({{{C::Id, "id"},
                                       {C::TaskName, "task_name"},
                                       {C::TaskJson, "task_json"},
                                       {C::Target, "target"},
                                       {C::Backend, "backend"},
                                       {C::Host, "host"},
                                       {C::ConfigJson, "config_json"},
                                       {C::Status, "status"},
                                       {C::CreatedAt, "created_at"},
                                       {C::UpdatedAt, "updated_at"},
                                       {C::CurrentIteration, "current_iteration"},
                                       {C::CurrentStep, "current_step"},
                                       {C::RunJson, "run_json"},
                                       {C::StopReason, "stop_reason"}}});
static_assert(list.inOrder());
} // namespace

const SessionTable::Columns &SessionTable::columns()
{
    return list;
}

SessionRecord SessionTable::read(const Statement &q, int first)
{
    const ColumnRow<C> row(q, first);
    SessionRecord s;
    s.id = row.text(C::Id);
    s.taskName = row.text(C::TaskName);
    s.task = SqlValues::objectFrom(row.value(C::TaskJson));
    s.target = row.text(C::Target);
    s.backend = row.text(C::Backend);
    s.host = row.text(C::Host);
    s.config = SqlValues::objectFrom(row.value(C::ConfigJson));
    SessionRecord::statusFromName(row.text(C::Status), s.status);
    s.created = SqlValues::timeFrom(row.value(C::CreatedAt));
    s.updated = SqlValues::timeFrom(row.value(C::UpdatedAt));
    s.currentIteration = row.integer(C::CurrentIteration);
    s.currentStep = row.text(C::CurrentStep);
    s.run = SqlValues::objectFrom(row.value(C::RunJson));
    s.stopReason = row.text(C::StopReason);
    return s;
}

void SessionTable::bind(Statement &q, const SessionRecord &s)
{
    q.bind(list.placeholder(C::Id), s.id)
        .bind(list.placeholder(C::TaskName), s.taskName)
        .bind(list.placeholder(C::TaskJson), SqlValues::json(s.task))
        .bind(list.placeholder(C::Target), s.target)
        .bind(list.placeholder(C::Backend), s.backend)
        .bind(list.placeholder(C::Host), s.host)
        .bind(list.placeholder(C::ConfigJson), SqlValues::json(s.config))
        .bind(list.placeholder(C::Status), SessionRecord::statusName(s.status))
        .bind(list.placeholder(C::CreatedAt), SqlValues::time(s.created))
        .bind(list.placeholder(C::UpdatedAt), SqlValues::time(s.updated))
        .bind(list.placeholder(C::CurrentIteration), s.currentIteration)
        .bind(list.placeholder(C::CurrentStep), s.currentStep)
        .bind(list.placeholder(C::RunJson), SqlValues::json(s.run))
        .bind(list.placeholder(C::StopReason), s.stopReason);
}
