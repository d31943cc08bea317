-- Two training runs for the golden cases of show, cost and compare of a
-- training run (tests/integration/golden.test.mjs loads this into a new
-- store): a LoRA fine-tune on two platforms, 30 steps each, fixed times.
-- Times are CLOCK_MONOTONIC ns as `truecost train` stamps them.
PRAGMA foreign_keys = ON;
DELETE FROM runs;
INSERT INTO runs (id, label, status, created, created_wall_ns, ended, ended_wall_ns, endpoint, api,
                  model, simulated, concurrency, warmup, requests_planned, duration_s_planned,
                  max_tokens, group_kind, uuid, command)
VALUES (1, 'lora-a', 'complete', '2026-12-02T10:00:00Z', 1796205600000000000,
        '2026-12-02T10:00:04Z', 1796205604000000000, 'train: python3 finetune.py --lora', 'openai',
        'python3', 0, 1, 0, 0, 0, 0, 'train', '00000000000000000000000000000a01',
        'truecost train --label lora-a -- python3 finetune.py --lora'),
       (2, 'lora-b', 'failed', '2026-12-02T11:00:00Z', 1796209200000000000,
        '2026-12-02T11:00:05Z', 1796209205000000000, 'train: python3 finetune.py --lora', 'openai',
        'python3', 0, 1, 0, 0, 0, 0, 'train', '00000000000000000000000000000a02',
        'truecost train --label lora-b -- python3 finetune.py --lora');
INSERT INTO train_runs VALUES
  (1, 'hf', 'python3 finetune.py --lora', '', 8, 0, -1, 6738415616, 40000000, 'RTX 4090',
   1000000000, 4100000000, 'exited', 0, 0, 30, 1, 64, 0, 0, 3.05, 78.7, 9.84, 1.62, 1.2e15, ''),
  (2, 'hf', 'python3 finetune.py --lora', '', 8, 0, -1, 6738415616, 40000000, 'RX 7900 XTX',
   1000000000, 5100000000, 'exited', 1, 0, 30, 0, 71, 0, 0, NULL, NULL, NULL, NULL, NULL, '');
-- 100 ms steps (+0, 2, 4 ms in turn) for A, 130 ms (+0, 3, 6) for B.
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 29)
INSERT INTO train_steps
SELECT 1, i, i + 1, 1000000000 + i * 100000000 + (i % 3) * 2000000,
       1796205601000000000 + i * 100000000, 2.0 - i * 0.01, 2e-5, 8, 256, NULL, NULL,
       12884901888 FROM c;
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 29)
INSERT INTO train_steps
SELECT 2, i, i + 1, 1000000000 + i * 130000000 + (i % 3) * 3000000,
       1796209201000000000 + i * 130000000, 2.0 - i * 0.01, 2e-5, 8, 256, NULL, NULL,
       13958643712 FROM c;
INSERT INTO train_warnings VALUES
  (1, 0, 'python_warning', 'FutureWarning', 'FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated', 2, 0),
  (2, 0, 'python_warning', 'UserWarning', 'UserWarning: flash attention was not compiled in', 1, 0),
  (2, 1, 'traceback', '', 'Traceback (most recent call last):', 1, 30),
  (2, 2, 'out_of_memory', '', 'torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB', 1, 30);
