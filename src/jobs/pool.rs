//! The one pool of worker threads that plays a long job's games or pairs (a run's games,
//! a tune's pairs): the calling thread drives, the workers play.
//!
//! The driver hands out tasks ([`Driver::push`]) as the job's own rules say (a run: the
//! schedule's next games, a few ahead of the workers; a tune: the pairs it claimed from
//! the folder, so that several processes share a batch), and receives the answers
//! ([`Driver::recv`]) in whatever order the threads finish them: it is the job's one
//! writer. Answers carry the task's index, so what the job writes depends on the indices
//! alone, never on the number of threads or their timing. [`Driver::halt`] stops the
//! workers: queued tasks are dropped and the halt flag every worker's engines watch is
//! raised, so the games in progress are abandoned (a stop request, a decided SPRT, an
//! error).
//!
//! It knows threads only; it knows nothing of games, pairs or folders.

use std::{
    collections::VecDeque,
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicBool, Ordering},
        mpsc,
    },
    time::Duration,
};

/// Worker threads: `--jobs`, else the config's `jobs`, else every core; at least one
/// and at most `most`.
pub fn worker_count(jobs: usize, config_jobs: u32, most: usize) -> usize {
    match jobs {
        0 if config_jobs > 0 => config_jobs as usize,
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, most.max(1))
}

/// The tasks waiting for a thread, and whether more may come.
struct Queue<T> {
    tasks: VecDeque<T>,
    closed: bool,
}

/// What the driver and the workers share.
struct Shared<T> {
    queue: Mutex<Queue<T>>,
    ready: Condvar,
    halt: Arc<AtomicBool>,
}

impl<T> Shared<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue<T>> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next task, waiting for one; None once the queue is closed and empty.
    fn pop(&self) -> Option<T> {
        let mut queue = self.lock();
        loop {
            if let Some(task) = queue.tasks.pop_front() {
                return Some(task);
            }
            if queue.closed {
                return None;
            }
            queue = self.ready.wait(queue).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// What [`Driver::recv`] gets.
#[derive(Debug)]
pub enum Received<R> {
    /// A worker's answer.
    Answer(R),
    /// Nothing within the timeout (time to look at the stop flag, refresh a clock).
    Idle,
    /// Every worker has ended (the queue was closed and emptied, or the pool halted).
    Finished,
}

/// The calling thread's handle on the pool: it hands out tasks and receives answers.
pub struct Driver<'p, T, R> {
    shared: &'p Shared<T>,
    answers: mpsc::Receiver<R>,
}

impl<T, R> Driver<'_, T, R> {
    /// Queues a task for the next free worker (dropped once the pool is halted).
    pub fn push(&self, task: T) {
        let mut queue = self.shared.lock();
        if queue.closed {
            return;
        }
        queue.tasks.push_back(task);
        drop(queue);
        self.shared.ready.notify_one();
    }

    /// Tasks queued that no worker has taken yet.
    pub fn queued(&self) -> usize {
        self.shared.lock().tasks.len()
    }

    /// No more tasks: each worker ends once the queue is empty.
    pub fn close(&self) {
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }

    /// Stops the workers: the queue is emptied and closed, and the halt flag raised (the
    /// games in progress are abandoned, their workers end).
    pub fn halt(&self) {
        self.shared.halt.store(true, Ordering::Relaxed);
        let mut queue = self.shared.lock();
        queue.tasks.clear();
        queue.closed = true;
        drop(queue);
        self.shared.ready.notify_all();
    }

    /// Whether the pool was halted.
    pub fn halted(&self) -> bool {
        self.shared.halt.load(Ordering::Relaxed)
    }

    /// The next answer, waiting at most `timeout`.
    pub fn recv(&self, timeout: Duration) -> Received<R> {
        match self.answers.recv_timeout(timeout) {
            Ok(answer) => Received::Answer(answer),
            Err(mpsc::RecvTimeoutError::Timeout) => Received::Idle,
            Err(mpsc::RecvTimeoutError::Disconnected) => Received::Finished,
        }
    }
}

/// Runs `threads` workers and `drive` on the calling thread; returns what `drive`
/// returns, once every worker has ended (the pool is halted when `drive` returns).
///
/// Each thread makes its worker with `worker(thread, halt)` (`thread`: 0, 1, ...; `halt`:
/// the flag to give its engines, raised by [`Driver::halt`]) and calls it with each task
/// it takes; the worker answers, or returns None to end its thread (its game was
/// abandoned). Workers are made on their own thread, so what they keep (engines, their
/// buffers) need not be [`Send`].
pub fn run<T, R, W, F, D, O>(threads: usize, worker: W, drive: D) -> O
where
    T: Send,
    R: Send,
    W: Fn(usize, &Arc<AtomicBool>) -> F + Sync,
    F: FnMut(T) -> Option<R>,
    D: FnOnce(&Driver<'_, T, R>) -> O,
{
    let shared = Shared {
        queue: Mutex::new(Queue {
            tasks: VecDeque::new(),
            closed: false,
        }),
        ready: Condvar::new(),
        halt: Arc::new(AtomicBool::new(false)),
    };
    let (tx, answers) = mpsc::channel::<R>();
    let driver = Driver {
        shared: &shared,
        answers,
    };
    std::thread::scope(|scope| {
        for thread in 0..threads.max(1) {
            let (tx, shared, worker) = (tx.clone(), &shared, &worker);
            scope.spawn(move || {
                let mut play = worker(thread, &shared.halt);
                while let Some(task) = shared.pop() {
                    let Some(answer) = play(task) else { break };
                    if tx.send(answer).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let out = drive(&driver);
        driver.halt();
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_is_answered_once_on_any_number_of_threads() {
        for threads in [1, 2, 5] {
            let mut got = run(
                threads,
                |thread, _| move |k: u64| Some((k, k * k, thread)),
                |d| {
                    for k in 0..50 {
                        d.push(k);
                    }
                    d.close();
                    let mut got = Vec::new();
                    loop {
                        match d.recv(Duration::from_secs(5)) {
                            Received::Answer((k, sq, thread)) => {
                                assert!(thread < threads);
                                got.push((k, sq));
                            }
                            Received::Idle => panic!("a worker stalled"),
                            Received::Finished => break got,
                        }
                    }
                },
            );
            got.sort_unstable();
            assert_eq!(got, (0..50).map(|k| (k, k * k)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_halt_drops_the_queue_and_raises_the_flag() {
        let answered = run(
            2,
            |_, halt| {
                let halt = Arc::clone(halt);
                // A "game" that runs until the pool halts, then is abandoned.
                move |k: u64| {
                    if k == 0 {
                        return Some(k);
                    }
                    while !halt.load(Ordering::Relaxed) {
                        std::thread::yield_now();
                    }
                    None
                }
            },
            |d| {
                for k in 0..100 {
                    d.push(k);
                }
                let mut answered = Vec::new();
                loop {
                    match d.recv(Duration::from_secs(5)) {
                        Received::Answer(k) => {
                            answered.push(k);
                            d.halt();
                            assert!(d.halted());
                            assert_eq!(d.queued(), 0);
                            d.push(7);
                            assert_eq!(d.queued(), 0, "a halted pool takes no task");
                        }
                        Received::Idle => panic!("task 0 is answered at once"),
                        Received::Finished => break answered,
                    }
                }
            },
        );
        assert_eq!(answered, vec![0]);
    }
}
