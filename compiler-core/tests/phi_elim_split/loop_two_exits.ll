target triple = "nvptx64-nvidia-cuda"
define void @f(ptr %p, ptr %q, i32 %n, i32 %m) {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %latch]
  %s = phi i32 [0, %entry], [%s1, %latch]
  %s1 = add i32 %s, %i
  %c = icmp sgt i32 %s1, %m
  br i1 %c, label %early, label %latch
latch:
  %i1 = add i32 %i, 1
  %c2 = icmp slt i32 %i1, %n
  br i1 %c2, label %loop, label %done
early:
  %r = phi i32 [%s1, %loop]
  store i32 %r, ptr %q
  br label %done
done:
  %out = phi i32 [%i1, %latch], [%s1, %early]
  store i32 %out, ptr %p
  ret void
}
